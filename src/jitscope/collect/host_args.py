"""NumPy arrays passed to jitted functions from inside a loop: host data JAX copies to the device on every
call (JW505, ``implicit-host-transfer``).

A cached jitted call copies each NumPy argument host-to-device in JAX's C++ dispatch, with no Python and no
event to observe per call (``jax.transfer_guard_host_to_device("disallow")`` shows that every call copies; it
would change the program's behaviour, so watch does not set it). What can be observed at no per-call cost is
the call that compiled: a ``monitoring.probes`` member looks at its arguments (only for calls that traced a
user function) and keeps each NumPy array leaf that is *the same object on every iteration* of a loop:

* the loop: around the call in its own frame (a backward jump around the call in the bytecode, ``for`` and
  ``while`` alike: Python 3.11 closes a ``while`` with ``POP_JUMP_BACKWARD_IF_*``), or around a
  call in a program frame above it (``trainer.update()`` in ``main``'s loop, ``step(self.X)`` inside
  ``update``), at most ``_MAX_CALLERS`` program frames up;
* the same object: the array is bound, in the frame that runs the loop, to a name (a module global, or a
  local) that the loop never assigns, or to an attribute of such a name's object that neither the loop nor
  the code of the frames between assigns (``data.X``, ``trainer.X`` seen as ``self.X`` in the method; a method
  called in the loop could still rebind it: that is the "likely" in JW505's evidence, and the end of the run
  checks that the attribute still holds that array); or an item of such a name's or attribute's dict that
  the code reads with a constant key (``step(w, data['x'])``; ``batches[i]`` has no constant key); or the
  array is an item of a container argument
  (a dict, a tuple, a pytree object) that is itself held so and into which no line of the loop stores an
  item (``data['x']``; ``buf['x'][:] = batch`` is a new batch in the same buffer);
* the same data: the contents' digest (``digest``, JW508's) at the compiling call is compared
  again at the end of the run where the array is still alive: a buffer refilled in place is new data.

Arrays made inside the loop (each batch), picked per iteration from a container (``batches[i]``) or rebound
in it are new data and are not kept. Named as the calling frame names them (``self.x_np``).
"""

from __future__ import annotations

import dis
import sys
import threading
import weakref
import zlib
from dataclasses import dataclass
from types import CodeType, ModuleType
from typing import Any

from ..model import Location
from .jax_signals import MonitoringProbe
from .program_frames import frame_kind, innermost_program_frame, location

MAX_RECORDS = 100
SAMPLE_ELEMENTS = 1 << 18  # elements of an array digested (an evenly spaced sample of larger ones)


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
    loop: Location | None = None  # the caller's line in a loop, when the loop is not around the call itself
    array: Any = None  # weak reference to the array: its contents are compared again at the end of the run
    digest: Any = None  # ``digest`` of the array at the call that compiled


_LOOPS: dict[CodeType, list[tuple[int, int]]] = {}


def _loops(code: CodeType) -> list[tuple[int, int]]:
    spans = _LOOPS.get(code)
    if spans is None:
        spans = [(ins.argval, ins.offset) for ins in dis.get_instructions(code)
                 if "JUMP_BACKWARD" in ins.opname and isinstance(ins.argval, int)]
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
        chain = _loop_frame(frame)
        if chain is None:
            return  # called once from here (no loop in the program's frames above): one copy, nothing repeated
        loop_frame, span, inner = chain
        try:
            targets = {id(a) for _, a in found}
            names, holders = held_by(loop_frame, span, targets, inner)
            _held_in_arguments(loop_frame, span, inner, call.args, call.kwargs, found, names)
            _held_as_items(loop_frame, span, inner, targets, names)
            shown, _ = held_by(frame, None, targets) if loop_frame is not frame else (names, None)
        except Exception:  # noqa: BLE001
            return
        loc = location(frame)
        loop = location(loop_frame) if loop_frame is not frame else None
        with self._lock:
            for path, arr in found:
                name = names.get(id(arr))
                if name is None:
                    continue  # made or rebound in the loop: new data each iteration
                try:
                    ref = weakref.ref(arr)
                except TypeError:
                    ref = None
                self.arguments.append(HostArgument(raw.function, path, _spec(arr), _sent_bytes(arr), loc,
                                                   shown.get(id(arr), name), holders.get(id(arr)), loop, ref,
                                                   digest([arr])))

    def confirmed(self) -> list[HostArgument]:
        """The arguments, less those held by an attribute that now holds another array (something in the
        loop rebound it after all: a method of the object), and those whose contents changed since the call
        that compiled (one buffer refilled in place with each new batch: new data). An object gone by now is
        given the benefit of the bytecode check."""
        out = []
        for a in list(self.arguments):
            obj, arr = (a.holder[0](), a.holder[1]()) if a.holder is not None else (None, None)
            if obj is not None and getattr(obj, a.name.rsplit(".", 1)[-1], None) is not arr:
                continue
            now = a.array() if a.array is not None else None
            if now is not None and a.digest is not None:
                try:
                    if digest([now]) != a.digest:
                        continue
                except Exception:  # noqa: BLE001 - an array resized or freed meanwhile: not the same data
                    continue
            out.append(a)
        return out


_MAX_CALLERS = 8  # program frames walked up from the call to find the loop that repeats it


def _loop_frame(frame: Any) -> tuple[Any, tuple[int, int], list[Any]] | None:
    """The innermost program frame at or above ``frame`` whose current instruction sits in a loop (the call
    itself, or a call of the function that made it: ``trainer.update()`` in a loop, ``step(self.X)`` inside),
    the loop's span, and the program frames between (their code may rebind an attribute on every call)."""
    inner: list[Any] = []
    f, n = frame, 0
    while f is not None and n < _MAX_CALLERS:
        if frame_kind(f.f_code.co_filename) == "program":
            span = loop_around(f.f_code, f.f_lasti)
            if span is not None:
                return f, span, inner
            inner.append(f)
            n += 1
        f = f.f_back
    return None


def _held_in_arguments(frame: Any, span: tuple[int, int], inner: list[Any], args: tuple, kwargs: dict,
                       found: list[tuple[str, Any]], names: dict[int, str]) -> None:
    """Arrays inside a container argument (a dict, a tuple, a pytree object) that the loop frame holds the
    same way on every iteration: the whole argument is held by a stable name or attribute (``batch``,
    ``self.data``) and the loop stores into no item of it. Named ``batch['x']``. Arrays inside a container
    picked per iteration (``batches[i]``) are not: the container passed is not held by a stable name."""
    tops = {id(v): (f"args[{i}]", v) for i, v in enumerate(args)} | \
        {id(v): (f"kwargs[{k!r}]", v) for k, v in kwargs.items()}
    containers = {i: v for i, (_, v) in tops.items() if not _is_numpy(v)}
    if not containers:
        return
    held, _ = held_by(frame, span, set(containers), inner)
    for i, holder in held.items():
        top_path = tops[i][0]
        root = holder.split(".")[-1]
        if subscript_stored_in(frame.f_code, root, span) or any(subscript_stored_in(f.f_code, root, None)
                                                                 for f in inner):
            continue
        for path, arr in found:
            inside = path == top_path or (path.startswith(top_path) and path[len(top_path)] in "[.")
            if inside and id(arr) not in names:
                names[id(arr)] = holder + path[len(top_path):]


def _held_as_items(frame: Any, span: tuple[int, int], inner: list[Any], targets: set[int],
                   names: dict[int, str]) -> None:
    """Arrays passed as ``data['x']``: an item, under a constant key, of a dict that the loop frame holds by a
    stable name or attribute (``data``, ``self.data``); the code reads that item with that constant key (in the
    loop, or in a frame between) and stores into no item of the dict. An item under a key that changes per
    iteration (``batches[i]``) is not read with a constant key: not named."""
    dicts: dict[int, tuple[str, dict]] = {}
    for ns in (frame.f_locals, frame.f_globals):
        for k, v in list(ns.items()):
            if k.startswith("__") or isinstance(v, (type, ModuleType)) or assigned_in(frame.f_code, k, span):
                continue
            if isinstance(v, dict) and len(v) <= 64:
                dicts.setdefault(id(v), (k, v))
            attrs = getattr(v, "__dict__", None)
            if isinstance(attrs, dict) and not isinstance(v, dict):
                for a, av in list(attrs.items())[:256]:
                    if isinstance(av, dict) and len(av) <= 64 and not attribute_assigned_in(frame.f_code, a, span):
                        dicts.setdefault(id(av), (f"{k}.{a}", av))
    codes = [(frame.f_code, span)] + [(f.f_code, None) for f in inner]
    for holder, d in dicts.values():
        root = holder.rsplit(".", 1)[-1]
        for key, v in list(d.items()):
            if id(v) not in targets or id(v) in names or not isinstance(key, (str, int)):
                continue
            if any(_reads_item(c, root, key, sp) for c, sp in codes) and \
                    not any(subscript_stored_in(c, root, sp) for c, sp in codes):
                names[id(v)] = f"{holder}[{key!r}]"


def _reads_item(code: CodeType, container: str, key: Any, span: tuple[int, int] | None) -> bool:
    """Whether ``code`` (inside ``span``, or anywhere) reads ``container[key]`` with ``key`` a constant."""
    ins = list(dis.get_instructions(code))
    for i in range(len(ins) - 2):
        a, b, c = ins[i], ins[i + 1], ins[i + 2]
        loaded = a.argval[-1] if isinstance(a.argval, tuple) and a.argval else a.argval  # 3.13's LOAD_FAST_LOAD_FAST
        if (a.opname.startswith("LOAD") and loaded == container and b.opname == "LOAD_CONST" and b.argval == key
                and c.opname in ("BINARY_SUBSCR", "BINARY_OP") and (c.opname == "BINARY_SUBSCR" or c.argrepr == "[]")
                and (span is None or span[0] <= c.offset <= span[1])):
            return True
    return False


def _is_numpy(v: Any) -> bool:
    import numpy as np

    return isinstance(v, np.ndarray)


def subscript_stored_in(code: CodeType, name: str, span: tuple[int, int] | None) -> bool:
    """Whether a line of ``code`` (inside ``span``, or anywhere) stores an item (``name[k] = v``,
    ``self.name[k] = v``, ``name[k][:] = v``) under a name or attribute ``name``: the container's content may
    change from one iteration to the next."""
    ins = list(dis.get_instructions(code))
    lines: dict[int, set[str]] = {}
    line = None
    for x in ins:
        line = x.positions.lineno if getattr(x, "positions", None) and x.positions.lineno else line
        if x.opname.startswith("LOAD"):  # 3.13 loads two names at once (LOAD_FAST_LOAD_FAST: a tuple)
            lines.setdefault(line, set()).update(map(str, x.argval) if isinstance(x.argval, tuple) else [str(x.argval)])
    for x in ins:  # ``a[k] = v``; ``a[i:j] = v`` is STORE_SLICE from Python 3.12
        if x.opname in ("STORE_SUBSCR", "STORE_SLICE") and (span is None or span[0] <= x.offset <= span[1]):
            at = x.positions.lineno if getattr(x, "positions", None) else None
            if at is None or name in lines.get(at, ()):
                return True
    return False


def held_by(frame: Any, span: tuple[int, int] | None, targets: set[int], inner: list[Any] = ()
            ) -> tuple[dict[int, str], dict[int, Any]]:
    """How the calling frame holds each target array (by ``id``) the same on every iteration of the loop
    ``span``: a name of its globals or locals that the loop never assigns (``X``), or an attribute of such a
    name's object that the loop never assigns (``data.X``, ``self.X``: no ``.X = `` in the loop, nor anywhere
    in the code of the ``inner`` frames between the loop and the call). Arrays reached otherwise (made in the
    loop, an item of a container) are not named. ``span`` None: names only, nothing checked. Also returns,
    for each array held by an attribute, weak references to its object and to the array
    (``HostArgument.holder``)."""
    code = frame.f_code
    out: dict[int, str] = {}
    holders: dict[int, Any] = {}
    stable: dict[str, bool] = {}
    for ns in (frame.f_locals, frame.f_globals):  # a local's name is the one the frame's code uses
        for k, v in list(ns.items()):
            if id(v) in targets and (span is None or not assigned_in(code, k, span)):
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
                    stable[k] = span is None or not assigned_in(code, k, span)
                if span is None or (stable[k] and not attribute_assigned_in(code, a, span) and not any(
                        attribute_assigned_in(f.f_code, a, None) for f in inner)):
                    out[id(av)] = f"{k}.{a}"
                    try:
                        holders[id(av)] = (weakref.ref(v), weakref.ref(av))
                    except TypeError:  # an object without weak references: no later check
                        pass
    return out, holders


def attribute_assigned_in(code: CodeType, attr: str, span: tuple[int, int] | None) -> bool:
    """Whether the code assigns an attribute named ``attr`` (``obj.attr = ...``) inside ``span``, or calls
    anything that could (a method of an object: conservatively, any ``setattr``)."""
    return any((ins.opname == "STORE_ATTR" and ins.argval == attr) or
               (ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == "setattr")
               for ins in dis.get_instructions(code) if span is None or span[0] <= ins.offset <= span[1])


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


def digest(arrays: list[Any]) -> tuple:
    """Shapes, dtypes and a CRC-32 of the contents (of an evenly spaced sample for large arrays)."""
    import numpy as np

    out: list[Any] = []
    for a in arrays:
        flat = a.reshape(-1)
        if flat.size > SAMPLE_ELEMENTS:
            flat = flat[:: -(-flat.size // SAMPLE_ELEMENTS)]
        out += [a.shape, str(a.dtype), zlib.crc32(np.ascontiguousarray(flat).view(np.uint8))]
    return tuple(out)


def _sent_bytes(array: Any) -> int:
    """The bytes JAX copies to the device for a NumPy argument: its elements in the dtype JAX makes of it
    (``float64`` arrives as ``float32`` while ``jax_enable_x64`` is off), not the host array's own size."""
    try:
        import jax

        return int(array.size) * int(jax.dtypes.canonicalize_dtype(array.dtype).itemsize)
    except Exception:  # noqa: BLE001 - a dtype JAX does not take: the host size
        return int(array.nbytes)
