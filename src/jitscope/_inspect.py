"""Stub: to be implemented."""

def inspect(*args, **kwargs):
    raise NotImplementedError("inspect")
