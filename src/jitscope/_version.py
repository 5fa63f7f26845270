"""The version of jitscope, on the ground floor so that any layer may read it."""

__version__ = "0.1.0"
