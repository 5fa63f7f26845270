"""Stub: to be implemented."""

def compare(*args, **kwargs):
    raise NotImplementedError("compare")
