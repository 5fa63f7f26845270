"""NumPy arrays passed to jitted functions from inside a loop: host data JAX copies to the device on every
call (JW505, ``implicit-host-transfer``).

A cached jitted call copies each NumPy argument host-to-device in JAX's C++ dispatch, with no Python and no
event to observe per call. What can be observed at no per-call cost is the call that compiled: a
``monitoring.probes`` member looks at its arguments (only for calls that traced a user function) and keeps
each NumPy array leaf that is *the same object on every iteration*: the call site is inside a loop of its
function (a backward jump around the call in the bytecode), and the array is bound to a name of the calling
frame (a module global, or a local) that the loop never assigns, or to an attribute of such a name's object
that the loop never assigns (``data.X``, ``self.X``; a method called in the loop could still rebind it:
that is the "likely" in JW505's evidence). That array is sent to the device again on every call from the
loop; arrays made inside the loop (each batch) are new data and are not kept.
"""

from __future__ import annotations

import dis
import sys
import threading
import weakref
from dataclasses import dataclass
from types import CodeType, ModuleType
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
    holder: Any = None  # for ``obj.attr``: (weakref to obj, weakref to the array), checked at the end of the run


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
            names, holders = held_by(frame, span, {id(a) for _, a in found})
        except Exception:  # noqa: BLE001
            return
        loc = location(frame)
        with self._lock:
            for path, arr in found:
                name = names.get(id(arr))
                if name is None:
                    continue  # made or rebound in the loop: new data each iteration
                self.arguments.append(HostArgument(raw.function, path, _spec(arr), int(arr.nbytes), loc, name,
                                                   holders.get(id(arr))))

    def confirmed(self) -> list[HostArgument]:
        """The arguments, less those held by an attribute that now holds another array (something in the
        loop rebound it after all: a method of the object). An object gone by now is given the benefit of
        the bytecode check."""
        out = []
        for a in list(self.arguments):
            obj, arr = (a.holder[0](), a.holder[1]()) if a.holder is not None else (None, None)
            if obj is not None and getattr(obj, a.name.rsplit(".", 1)[-1], None) is not arr:
                continue
            out.append(a)
        return out


def held_by(frame: Any, span: tuple[int, int], targets: set[int]) -> tuple[dict[int, str], dict[int, Any]]:
    """How the calling frame holds each target array (by ``id``) the same on every iteration of the loop
    ``span``: a name of its globals or locals that the loop never assigns (``X``), or an attribute of such a
    name's object that the loop never assigns (``data.X``, ``self.X``: no ``.X = `` in the loop). Arrays
    reached otherwise (made in the loop, an item of a container) are not named. Also returns, for each array
    held by an attribute, weak references to its object and to the array (``HostArgument.holder``)."""
    code = frame.f_code
    out: dict[int, str] = {}
    holders: dict[int, Any] = {}
    stable: dict[str, bool] = {}
    for ns in (frame.f_globals, frame.f_locals):
        for k, v in list(ns.items()):
            if id(v) in targets and not assigned_in(code, k, span):
                out.setdefault(id(v), k)
    if len(out) == len(targets):
        return out, holders
    for ns in (frame.f_locals, frame.f_globals):
        for k, v in list(ns.items()):
            attrs = getattr(v, "__dict__", None)
            if not isinstance(attrs, dict) or isinstance(v, (type, ModuleType)) or k.startswith("__"):
                continue
            for a, av in list(attrs.items()):
                if id(av) not in targets or id(av) in out:
                    continue
                if k not in stable:
                    stable[k] = not assigned_in(code, k, span)
                if stable[k] and not attribute_assigned_in(code, a, span):
                    out[id(av)] = f"{k}.{a}"
                    try:
                        holders[id(av)] = (weakref.ref(v), weakref.ref(av))
                    except TypeError:  # an object without weak references: no later check
                        pass
    return out, holders


def attribute_assigned_in(code: CodeType, attr: str, span: tuple[int, int]) -> bool:
    """Whether the code assigns an attribute named ``attr`` (``obj.attr = ...``) inside ``span``, or calls
    anything that could (a method of an object: conservatively, any ``setattr``)."""
    return any((ins.opname == "STORE_ATTR" and ins.argval == attr) or
               (ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == "setattr")
               for ins in dis.get_instructions(code) if span[0] <= ins.offset <= span[1])


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
