"""Stub: to be implemented."""

def lint(*args, **kwargs):
    raise NotImplementedError("lint")
