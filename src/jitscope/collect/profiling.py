"""One ``sys.setprofile`` per thread, shared by jitscope's collectors that need one while JAX traces.

Python 3.11 has no ``sys.monitoring``: the trace probe (mutating methods of outer containers,
``trace_probe.py``) and the trace-evidence collector (``trace_evidence.py``) both watch calls with a
profile function, each only while a trace runs on its thread. A thread has one profile function, so
``add`` installs a dispatcher that calls every callback added on that thread (the one callback itself
when it is alone) and ``remove`` puts back nothing once the last is gone. A profile function the
program installed itself is left alone: ``add`` says False and the caller goes without.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

Callback = Callable[[Any, str, Any], object]


class _Local(threading.local):
    def __init__(self) -> None:
        self.callbacks: list[Callback] = []
        self.installed: Any = None  # the profile function this module set on this thread


_local = _Local()


def _dispatcher(callbacks: list[Callback]) -> Callback:
    def dispatch(frame: Any, event: str, arg: Any) -> None:
        for cb in callbacks:
            cb(frame, event, arg)

    return dispatch


def add(callback: Callback) -> bool:
    """Call ``callback(frame, event, arg)`` for every profile event on this thread, until ``remove``.
    False (and nothing installed) when the thread already has a profile function that is not ours."""
    loc = _local
    current = sys.getprofile()
    if current is not None and current is not loc.installed:
        return False
    loc.callbacks.append(callback)
    _install(loc)
    return True


def remove(callback: Callback) -> None:
    """Stop calling ``callback`` on this thread (the profile function goes when no callback is left)."""
    loc = _local
    try:
        loc.callbacks.remove(callback)
    except ValueError:
        return
    if sys.getprofile() is not loc.installed:  # replaced by someone else meanwhile: theirs now
        loc.installed = None
        loc.callbacks.clear()
        return
    _install(loc)


def _install(loc: _Local) -> None:
    cbs = loc.callbacks
    fn = None if not cbs else cbs[0] if len(cbs) == 1 else _dispatcher(list(cbs))
    loc.installed = fn
    sys.setprofile(fn)
