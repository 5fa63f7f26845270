"""Stub: to be implemented."""

def scale(*args, **kwargs):
    raise NotImplementedError("scale")
