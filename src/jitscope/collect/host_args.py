"""NumPy arrays passed to jitted functions from inside a loop: host data JAX copies to the device on every
call (JW505, ``implicit-host-transfer``).

A cached jitted call copies each NumPy argument host-to-device in JAX's C++ dispatch, with no Python and no
event to observe per call. What can be observed at no per-call cost is the call that compiled: a
``monitoring.probes`` member looks at its arguments (only for calls that traced a user function) and keeps
each NumPy array leaf that is *the same object on every iteration*: the call site is inside a loop of its
function (a backward jump around the call in the bytecode), and the array is bound to a name of the calling
frame (a module global, or a local) that the loop never assigns. That array is sent to the device again on
every call from the loop; arrays made inside the loop (each batch) are new data and are not kept.
"""

from __future__ import annotations

import dis
import sys
import threading
from dataclasses import dataclass
from types import CodeType
from typing import Any

from ..model import Location
from .jax_signals import MonitoringProbe
from .program_frames import innermost_program_frame, location

MAX_RECORDS = 100


@dataclass
class HostArgument:
    """A NumPy array a user jitted function was compiled for, at a call site of the program."""

    function: str
    path: str  # where in the call's arguments (``args[0]``, ``kwargs['x']``, ``args[1][2]``)
    spec: str  # ``f32[1000,10]``
    nbytes: int
    location: Location | None  # the program's call (inside a loop)
    name: str  # the name the calling frame holds it by (never assigned inside the loop)


_LOOPS: dict[CodeType, list[tuple[int, int]]] = {}


def _loops(code: CodeType) -> list[tuple[int, int]]:
    spans = _LOOPS.get(code)
    if spans is None:
        spans = [(ins.argval, ins.offset) for ins in dis.get_instructions(code)
                 if ins.opname.startswith("JUMP_BACKWARD") and isinstance(ins.argval, int)]
        _LOOPS[code] = spans
    return spans


def loop_around(code: CodeType, offset: int) -> tuple[int, int] | None:
    """The innermost loop (start, backward-jump offset) around the bytecode at ``offset``, or None."""
    spans = [(a, b) for a, b in _loops(code) if a <= offset <= b]
    return min(spans, key=lambda s: s[1] - s[0]) if spans else None


_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


def assigned_in(code: CodeType, name: str, span: tuple[int, int]) -> bool:
    """Whether the code assigns ``name`` (any store, the loop target included) inside ``span``."""
    return any(ins.opname in _STORES and ins.argval == name and span[0] <= ins.offset <= span[1]
               for ins in dis.get_instructions(code))


class HostArgumentProbe(MonitoringProbe):
    """Keeps ``HostArgument`` records of the calls that compiled user functions with NumPy arguments."""

    def __init__(self) -> None:
        self.arguments: list[HostArgument] = []
        self._lock = threading.Lock()

    def exit(self, call: Any, exc: BaseException | None) -> None:
        raw = call.pending
        if raw is None or not raw.user or exc is not None or len(self.arguments) >= MAX_RECORDS:
            return
        try:
            found = _numpy_leaves(call.args, call.kwargs)
        except Exception:  # noqa: BLE001 - an exotic pytree: nothing recorded
            return
        if not found:
            return
        frame = innermost_program_frame(sys._getframe(1))
        if frame is None:
            return
        span = loop_around(frame.f_code, frame.f_lasti)
        if span is None:
            return  # called once from here: one copy, nothing repeated
        try:
            names = {id(v): k for ns in (frame.f_globals, frame.f_locals) for k, v in ns.items()
                     if id(v) in {id(a) for _, a in found}}
        except Exception:  # noqa: BLE001
            return
        loc = location(frame)
        with self._lock:
            for path, arr in found:
                name = names.get(id(arr))
                if name is None or assigned_in(frame.f_code, name, span):
                    continue  # made or rebound in the loop: new data each iteration
                self.arguments.append(HostArgument(raw.function, path, _spec(arr), int(arr.nbytes), loc, name))


def _numpy_leaves(args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    import jax
    import numpy as np

    out = []
    leaves = jax.tree_util.tree_flatten_with_path((args, kwargs))[0]
    for path, leaf in leaves:
        if type(leaf) is np.ndarray and leaf.size > 1:  # a NumPy scalar or 1-element array costs nothing
            out.append((_path_text(path), leaf))
    return out


def _path_text(path: Any) -> str:
    import jax

    text = jax.tree_util.keystr(path)
    if text.startswith("[0]"):
        return "args" + text[3:]
    if text.startswith("[1]"):
        return "kwargs" + text[3:]
    return text


def _spec(arr: Any) -> str:
    from ..model import DTYPE_SHORT

    dt = str(arr.dtype)
    return f"{DTYPE_SHORT.get(dt, dt)}[{','.join(map(str, arr.shape))}]"
