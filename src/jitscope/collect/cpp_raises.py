"""Errors JAX raises from C++ straight into the program's frame, with no Python code of JAX on the way.

A jitted function's call is JAX's C++ dispatch (``PjitFunction.__call__``): it hashes the static arguments
before any Python code of JAX runs, and a non-hashable one raises ``ValueError("Non-hashable static arguments
are not supported ...")`` there. JAX's exception boundary (``_jaxcompat.install_boundary_hook``) never sees
such an error unless it crosses a JAX API on its way (a jitted function called inside another trace), so a
program that catches it leaves nothing for that hook.

On Python 3.12 and later, ``sys.monitoring``'s ``RAISE`` event is fired in each Python frame an exception is
raised into, C calls included, at no cost to code that raises nothing: ``install_raise_monitor(on_raise)``
calls ``on_raise(exc, frame)`` for an exception of a class in ``_CLASSES`` whose message starts with one of
``CPP_MESSAGES`` (JAX's own wording), raised into a frame of the program. The executable's refusals are
the same kind of error: a donated array passed again to a jitted call whose C++ cache holds the executable
(``INVALID_ARGUMENT: Invalid buffer passed to Execute() ... Buffer has been deleted or donated``; a new
``jax.jit`` object of the same function shares that cache) and one buffer in two donated arguments on a
call after the first (the first call, through JAX's Python slow path, crosses the boundary). On Python 3.11 there is no such
event short of a trace function on every frame (``sys.settrace``, which would slow every Python line): the
installer returns a no-op there, and the error is seen only where it crosses a JAX boundary (or, uncaught,
as watch's crash explanation).

Nothing of the program or of JAX changes: the event is observed, never altered. The tool id is one that no
other tool holds (a debugger, coverage or a profiler keep theirs).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .program_frames import frame_kind

CPP_MESSAGES = ("Non-hashable static arguments are not supported",
                # the fast path's executable refusing a donated (deleted) buffer, or one buffer donated twice
                "INVALID_ARGUMENT: Invalid buffer passed to Execute()",
                "INVALID_ARGUMENT: Attempt to donate the same buffer twice")
_CLASSES = (ValueError, TypeError, RuntimeError)
_TOOL_IDS = (4, 3)  # sys.monitoring's unassigned ids (0 debugger, 1 coverage, 2 profiler, 5 optimizer)


def install_raise_monitor(on_raise: Callable[[BaseException, Any], None]) -> Callable[[], None]:
    """Start reporting C++-raised JAX errors to ``on_raise(exc, frame)``; returns the uninstaller (a no-op
    on Python 3.11 and wherever no tool id is free)."""
    mon = getattr(sys, "monitoring", None)
    if mon is None:
        return lambda: None
    tool = next((i for i in _TOOL_IDS if mon.get_tool(i) is None), None)
    if tool is None:
        return lambda: None
    mon.use_tool_id(tool, "jitscope")
    raise_event = mon.events.RAISE

    def on_event(code: Any, offset: int, exc: BaseException) -> None:
        if not isinstance(exc, _CLASSES):
            return
        try:
            if not str(exc).startswith(CPP_MESSAGES) or frame_kind(code.co_filename) != "program":
                return
            frame = sys._getframe(1)
            while frame is not None and frame.f_code is not code:
                frame = frame.f_back
            if frame is not None:
                on_raise(exc, frame)
        except Exception:  # noqa: BLE001 - the program's exception goes on whatever happens here
            pass

    mon.register_callback(tool, raise_event, on_event)
    mon.set_events(tool, raise_event)

    def uninstall() -> None:
        try:
            mon.set_events(tool, 0)
            mon.register_callback(tool, raise_event, None)
            mon.free_tool_id(tool)
        except Exception:  # noqa: BLE001
            pass

    return uninstall
