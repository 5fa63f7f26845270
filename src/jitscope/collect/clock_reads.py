"""The program's clock reads that end a timed region while a result computed in it is still running (JW507,
``async-timing-mistake``).

JAX dispatches asynchronously: a jitted call returns as soon as the work is queued, so
``t0 = time.perf_counter(); y = f(x); t1 = time.perf_counter()`` measures the dispatch, not the computation,
unless ``y.block_until_ready()`` comes before ``t1``. While watching, ``time.perf_counter``, ``time.time`` and
``time.monotonic`` are wrapped (the clock is read first, then this check runs; the value returned is the
clock's own). A read from a frame of the program that ends a region (its value is the left operand of a
subtraction: ``time.perf_counter() - t0``, or ``t1 = ...`` with ``t1 - t0`` in the same code; read from the
bytecode) and is not the first clock read of that frame looks at the ``jax.Array`` values the frame holds (its locals, or a module's globals; the items of a tuple, list or dict
held there), and counts the read as *late* when one of them is not ready (``is_ready()`` False) and was not
held at the frame's previous clock read: a result made inside the timed region, still being computed when
the region ended. Reads from JAX, libraries and jitscope itself pass straight through. Function frames are
looked at on Python 3.13+ only (``_PROXY_LOCALS``); before, module-level code only.

Cost: a Python call around every clock read in the process (well under a microsecond when the caller is not
the program's); a program frame's read also walks its locals (one ``is_ready()`` per new array), in full for
the first 256 reads of a line and then for one read in 64 (a loop that polls the clock stays cheap).
"""

from __future__ import annotations

import inspect
import sys
import threading
import time
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

from ..model import Location
from .program_frames import frame_kind, location

CLOCKS = ("perf_counter", "time", "monotonic")
MAX_SITES = 200
_MAX_FRAMES = 256
# Python 3.13+ (PEP 667): a function frame's f_locals is a live proxy. Before, reading it copies the locals
# into a dict the frame keeps until its next sync: arrays the program deletes or rebinds would stay alive
# (device memory held longer). There only module-level frames (f_locals is the globals dict) are looked at.
_PROXY_LOCALS = sys.version_info >= (3, 13)
_FULL_READS = 256  # reads of one line examined in full; then one in _SAMPLE_EVERY (a busy wait on the clock)
_SAMPLE_EVERY = 64


@dataclass
class ClockSite:
    """The clock reads of one line of the program that ended a timed region."""

    location: Location
    reads: int = 0  # reads that ended a region in which the frame got new arrays
    late: int = 0  # ... of which some new array was not ready yet
    names: dict[str, int] = field(default_factory=dict)  # names of the arrays not ready -> reads


class ClockReadProbe:
    """Wraps the ``time`` clocks while installed (thread-safe; never raises into the program)."""

    def __init__(self) -> None:
        self.sites: dict[tuple[str, int], ClockSite] = {}
        self._last: dict[int, tuple[CodeType, set[int]]] = {}  # id(frame) -> (its code, array ids held then)
        self._lock = threading.Lock()
        self._saved: dict[str, Any] = {}
        self._reads: dict[tuple[CodeType, int], int] = {}  # clock reads per (code, offset)
        self._array_type: Any = None

    def install(self) -> ClockReadProbe:
        from jax import Array

        self._array_type = Array
        for name in CLOCKS:
            original = getattr(time, name)

            def clock(_original: Any = original) -> Any:
                value = _original()
                try:
                    self._on_read(sys._getframe(1))
                except Exception:  # noqa: BLE001 - the program gets its clock value whatever happens here
                    pass
                return value

            # The wrapper answers to the original's name: code that stores a clock by reference
            # (``f"{fn.__module__}.{fn.__name__}"``, pickle) and looks it up again gets it back while watching
            # (pytest-benchmark does this for its default timer; it failed to start under `watch -m pytest`).
            clock.__module__ = getattr(original, "__module__", None) or "time"
            clock.__name__ = clock.__qualname__ = name
            clock.__doc__ = original.__doc__
            self._saved[name] = (original, clock)
            setattr(time, name, clock)
        return self

    def uninstall(self) -> None:
        for name, (original, clock) in self._saved.items():
            if getattr(time, name) is clock:
                setattr(time, name, original)
        self._saved.clear()

    def _on_read(self, frame: FrameType) -> None:
        if frame_kind(frame.f_code.co_filename) != "program":
            return
        if not _PROXY_LOCALS and frame.f_code.co_flags & inspect.CO_OPTIMIZED:
            return  # a function frame before 3.13: reading f_locals would snapshot (and keep alive) its locals
        key = id(frame)
        here = (frame.f_code, frame.f_lasti)
        n = self._reads.get(here, 0) + 1
        if len(self._reads) < 4096 or here in self._reads:
            self._reads[here] = n
        if n > _FULL_READS and n % _SAMPLE_EVERY:
            with self._lock:  # a hot clock line (a busy wait) is sampled; the skipped read starts no region
                self._last.pop(key, None)
            return
        arrays = _arrays(frame.f_locals, self._array_type)
        with self._lock:
            prev = self._last.pop(key, None)
            if len(self._last) >= _MAX_FRAMES:
                self._last.pop(next(iter(self._last)))
            self._last[key] = (frame.f_code, set(arrays))
        if prev is None or prev[0] is not frame.f_code or not ends_region(frame.f_code, frame.f_lasti):
            return  # the frame's first clock read, or one that starts a region
        new = {i: (n, a) for i, (n, a) in arrays.items() if i not in prev[1]}
        if not new:
            return
        late = [n for n, a in new.values() if not _ready(a)]
        site_key = (frame.f_code.co_filename, frame.f_lineno)
        with self._lock:
            site = self.sites.get(site_key)
            if site is None:
                if len(self.sites) >= MAX_SITES:
                    return
                site = self.sites[site_key] = ClockSite(location(frame))
            site.reads += 1
            if late:
                site.late += 1
                for n in late[:4]:
                    site.names[n] = site.names.get(n, 0) + 1


_ENDS: dict[tuple[CodeType, int], bool] = {}
_LOADS = ("LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW")
_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


def ends_region(code: CodeType, offset: int) -> bool:
    """Whether the clock call at ``offset`` gives the minuend of a subtraction: used at once
    (``clock() - t0``) or stored in a name that the code subtracts from (``t1 = clock()`` ... ``t1 - t0``)."""
    key = (code, offset)
    known = _ENDS.get(key)
    if known is None:
        known = _ENDS[key] = _minuend(code, offset)
        if len(_ENDS) > 4096:
            _ENDS.pop(next(iter(_ENDS)))
    return known


def _minuend(code: CodeType, offset: int) -> bool:
    import dis

    ins = list(dis.get_instructions(code))
    # ``f_lasti`` may point past the call into its inline caches: the call is the last instruction at or before it.
    at = max((i for i, x in enumerate(ins) if x.offset <= offset), default=None)
    if at is None or at + 1 >= len(ins):
        return False

    def subtracts(i: int) -> bool:  # ins[i] is the second operand's load
        return i + 1 < len(ins) and ins[i].opname in _LOADS and ins[i + 1].opname == "BINARY_OP" \
            and ins[i + 1].argrepr.strip() == "-"

    nxt = ins[at + 1]
    if subtracts(at + 1):
        return True
    if nxt.opname in _STORES:
        name = nxt.argval
        return any((x.opname in _LOADS and x.argval == name and subtracts(j + 1)) or _pair_minuend(ins, j, name)
                   for j, x in enumerate(ins[:-1]))
    return False


def _pair_minuend(ins: list[Any], j: int, name: str) -> bool:
    """Python 3.13's ``LOAD_FAST_LOAD_FAST (name, other)`` then ``BINARY_OP -``: ``name - other``."""
    x = ins[j]
    return x.opname == "LOAD_FAST_LOAD_FAST" and isinstance(x.argval, tuple) and x.argval[0] == name \
        and ins[j + 1].opname == "BINARY_OP" and ins[j + 1].argrepr.strip() == "-"


def _arrays(namespace: Any, array_type: Any) -> dict[int, tuple[str, Any]]:
    """The jax.Array values a frame holds: by name, and the items of a tuple, list or dict held by name."""
    out: dict[int, tuple[str, Any]] = {}
    for name, v in list(namespace.items()):
        if isinstance(v, array_type):
            out[id(v)] = (name, v)
        elif isinstance(v, (tuple, list)) and len(v) <= 64:
            for i, item in enumerate(v):
                if isinstance(item, array_type):
                    out[id(item)] = (f"{name}[{i}]", item)
        elif isinstance(v, dict) and len(v) <= 64 and not name.startswith("__"):
            for k, item in list(v.items()):
                if isinstance(item, array_type):
                    out[id(item)] = (f"{name}[{k!r}]", item)
    return out


def _ready(array: Any) -> bool:
    try:
        return bool(array.is_ready())
    except Exception:  # noqa: BLE001 - a deleted or tracer-like value: not a pending result
        return True
