"""Stub: to be implemented."""

def demo(*args, **kwargs):
    raise NotImplementedError("demo")
