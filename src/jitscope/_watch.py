"""Stub: to be implemented."""

def watch(*args, **kwargs):
    raise NotImplementedError("watch")

def no_recompile(*args, **kwargs):
    raise NotImplementedError("no_recompile")
