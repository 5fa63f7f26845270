"""The program's clock reads that end a timed region while a result computed in it is still running (JW507,
``async-timing-mistake``).

JAX dispatches asynchronously: a jitted call returns as soon as the work is queued, so
``t0 = time.perf_counter(); y = f(x); t1 = time.perf_counter()`` measures the dispatch, not the computation,
unless ``y.block_until_ready()`` comes before ``t1``. While watching, ``time.perf_counter``, ``time.time``,
``time.monotonic`` and their ``_ns`` forms are wrapped (the clock is read first, then this check runs; the value
returned is the clock's own; ``from time import perf_counter`` in the program binds the wrapper, since the
program runs after it is installed). A read from a frame of the program that ends a region (its value is the
left operand of a subtraction: ``time.perf_counter() - t0``, ``perf_counter() - self.t0``, or ``t1 = ...`` with
``t1 - t0`` in the same code; read from the bytecode) counts as *late* when a ``jax.Array`` made inside the
region is not ready (``is_ready()`` False): a result still being computed when the region ended. Which arrays
were made inside the region:

* the frame's own, where its locals can be read without side effects (module-level code; function frames on
  Python 3.13+, ``_PROXY_LOCALS``) and the frame read the clock before: the ``jax.Array`` values it holds (its
  locals, or a module's globals; the items of a tuple, list or dict held there) that it did not hold at its
  previous clock read; they name the finding (``'y'``);
* otherwise (a function frame before 3.13, whose ``f_locals`` would snapshot and keep alive its locals; or the
  frame's first read, as in a timer's ``__exit__`` or a ``toc(t0)`` helper whose region began in another
  frame): the arrays alive in the process (``jax.live_arrays()``) that were not alive at the thread's previous
  clock read from the program; they are named by type (``'a f32[1000,1000] result'``). A region that began in
  another frame is filed at the calling line of the program (the ``with`` statement, the ``toc(t0)`` call):
  where ``block_until_ready`` belongs; the helper's own line is kept beside it.

Reads from JAX, libraries and jitscope itself pass straight through. Not seen: ``timeit`` (its loop runs in
generated code and drops each result, so nothing made in the region is alive at its closing read).

Cost: a Python call around every clock read in the process (well under a microsecond when the caller is not
the program's); a program frame's read also walks its locals (one ``is_ready()`` per new array) and lists the
live arrays (about 0.15 us per array alive: 150 us with 1,000 arrays), in full for the first 256 reads of a
line and then for one read in 64 (a loop that polls the clock stays cheap), or, where the live list stands in
for the locals, for the first 16 reads of a line and then one in 256 (one late read makes the finding).
"""

from __future__ import annotations

import inspect
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

from ..model import Location
from .host_reads import _spec
from .program_frames import frame_kind, location

CLOCKS = ("perf_counter", "time", "monotonic", "perf_counter_ns", "time_ns", "monotonic_ns")
MAX_SITES = 200
_MAX_FRAMES = 256
# Python 3.13+ (PEP 667): a function frame's f_locals is a live proxy. Before, reading it copies the locals
# into a dict the frame keeps until its next sync: arrays the program deletes or rebinds would stay alive
# (device memory held longer). There only module-level frames (f_locals is the globals dict) are looked at.
_PROXY_LOCALS = sys.version_info >= (3, 13)
_FULL_READS = 256  # reads of one line examined in full; then one in _SAMPLE_EVERY (a busy wait on the clock)
_SAMPLE_EVERY = 64
# The live-array form (a function frame before 3.13) lists every array alive (0.15 us each): one late read makes
# the finding, so a line is examined in full for its first 16 reads only, then one read in 256 (a training
# loop with 10,000 live arrays and two clock reads per step pays about 12 us a step on average after that).
_LIVE_FULL_READS = 16
_LIVE_SAMPLE_EVERY = 256
_MAX_NEW = 256  # arrays made in one region whose readiness is asked (the newest matter; all are in flight alike)


@dataclass
class ClockSite:
    """The clock reads of one line of the program that ended a timed region."""

    location: Location
    reads: int = 0  # reads that ended a region in which the frame got new arrays
    late: int = 0  # ... of which some new array was not ready yet
    names: dict[str, int] = field(default_factory=dict)  # names of the arrays not ready -> reads
    helper: Location | None = None  # the timing helper's own clock line (``toc``, a timer's __exit__), if any


class ClockReadProbe:
    """Wraps the ``time`` clocks while installed (thread-safe; never raises into the program)."""

    def __init__(self) -> None:
        self.sites: dict[tuple[str, int], ClockSite] = {}
        self._last: dict[int, tuple[CodeType, set[int]]] = {}  # id(frame) -> (its code, array ids held then)
        self._lock = threading.Lock()
        self._saved: dict[str, Any] = {}
        self._reads: dict[tuple[CodeType, int], int] = {}  # clock reads per (code, offset)
        self._array_type: Any = None
        self._threads: dict[int, set[int]] = {}  # thread -> ids of the arrays alive at its previous program read
        # Per thread, the timed regions the program ended (``clock() - t0``), every one, sampled or not, as
        # (perf_counter at the read that began it, at the read that ended it): a host sync inside such a region
        # is the measurement's own (``timed_between``, read by ``collect/host_reads.py``). A region's start is the
        # latest clock read whose value the program kept (stored or returned, not subtracted at once) in a frame
        # on the ending read's stack, or in a frame such a frame called (a timer's ``__enter__``, a ``tic()``).
        self._starts: dict[int, dict[tuple[int, CodeType], float]] = {}
        self._regions: dict[int, deque[tuple[float, float]]] = {}

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
        key = id(frame)
        here = (frame.f_code, frame.f_lasti)
        self._note_region(frame, _now())
        n = self._reads.get(here, 0) + 1
        if len(self._reads) < 4096 or here in self._reads:
            self._reads[here] = n
        readable = _PROXY_LOCALS or not frame.f_code.co_flags & inspect.CO_OPTIMIZED
        full, every = (_FULL_READS, _SAMPLE_EVERY) if readable else (_LIVE_FULL_READS, _LIVE_SAMPLE_EVERY)
        if n > full and n % every:
            with self._lock:  # a hot clock line (a busy wait) is sampled; the skipped read starts no region
                self._last.pop(key, None)
                self._threads.pop(threading.get_ident(), None)
            return
        with self._lock:
            prev = self._last.get(key)
        if prev is not None and prev[0] is not frame.f_code:
            prev = None  # a new frame at a recycled address
        site_frame = frame
        if not readable or prev is None:
            # A function frame before 3.13 (reading f_locals would snapshot and keep alive its locals), or the
            # frame's first read (a timer's __exit__ whose region began in its __enter__): the arrays alive in the
            # process since the thread's previous program clock read stand for the region's results.
            late = self._live_late(frame)
            self._remember(key, frame.f_code, set(_arrays(frame.f_locals, self._array_type)) if readable else set())
            if prev is None and late is not None:
                # The region began in another frame: this one is a timing helper (``toc(t0)``, a context manager's
                # __exit__). The user's timed code, where block_until_ready belongs, is its caller's line.
                caller = frame.f_back
                if caller is not None and frame_kind(caller.f_code.co_filename) == "program":
                    site_frame = caller
        else:
            arrays = _arrays(frame.f_locals, self._array_type)
            self._remember(key, frame.f_code, set(arrays))
            self._live_late(frame, check=False)  # the thread's region starts here too (a helper may end it)
            if not ends_region(frame.f_code, frame.f_lasti):
                return
            new = {i: (n, a) for i, (n, a) in arrays.items() if i not in prev[1]}
            late = [n for n, a in new.values() if not _ready(a)] if new else None
        if late is None:
            return  # a read that starts a region, or a region that made no new array
        site_key = (site_frame.f_code.co_filename, site_frame.f_lineno)
        with self._lock:
            site = self.sites.get(site_key)
            if site is None:
                if len(self.sites) >= MAX_SITES:
                    return
                site = self.sites[site_key] = ClockSite(location(site_frame),
                                                        helper=location(frame) if site_frame is not frame else None)
            site.reads += 1
            if late:
                site.late += 1
                for n in late[:4]:
                    site.names[n] = site.names.get(n, 0) + 1

    def _note_region(self, frame: FrameType, now: float) -> None:
        """Keep the region this read ends (its start: the latest kept clock value of a frame on its stack) and,
        when the program keeps this read's value, remember it as a start for its frame and the frame's caller."""
        thread = threading.get_ident()
        starts = self._starts.get(thread)
        if starts is None:
            if len(self._starts) >= _MAX_THREADS:
                return
            starts = self._starts.setdefault(thread, {})
        kind = read_kind(frame.f_code, frame.f_lasti)
        if kind:
            f: FrameType | None = frame
            begun = None
            for _ in range(_STACK_DEPTH):
                if f is None:
                    break
                t = starts.get((id(f), f.f_code))
                if t is not None and (begun is None or t > begun):
                    begun = t
                f = f.f_back
            if begun is not None:
                self._regions.setdefault(thread, deque(maxlen=8)).append((begun, now))
        if kind != _SUBTRACTED:  # ``clock() - start`` (an elapsed-time print) keeps no value: it starts nothing
            for f in (frame, frame.f_back):
                if f is not None:
                    starts.pop((id(f), f.f_code), None)
                    if len(starts) >= 64:
                        starts.pop(next(iter(starts)))
                    starts[(id(f), f.f_code)] = now

    def timed_between(self, before: float | None, sync: float, now: float) -> bool:
        """Whether this thread ended, after ``sync`` and by ``now``, a timed region that began after ``before``
        (None: any time) and before ``sync``: a region around that one sync, as a benchmark timing each step
        makes. A region that began before the loop (``time.time() - start`` printed each step) spans many syncs
        and is not one."""
        regions = self._regions.get(threading.get_ident())
        if not regions:
            return False
        low = -1.0 if before is None else before
        return any(low < b < sync < e <= now for b, e in list(regions))

    def _remember(self, key: int, code: CodeType, ids: set[int]) -> None:
        with self._lock:
            self._last.pop(key, None)
            if len(self._last) >= _MAX_FRAMES:
                self._last.pop(next(iter(self._last)))
            self._last[key] = (code, ids)

    def _live_late(self, frame: FrameType, check: bool = True) -> list[str] | None:
        """The live-array form of the check, per thread: None when this read starts a region (or the thread's
        first read), else the specs of the arrays made since the thread's previous program clock read that are
        not ready (``f32[1000,1000]``; these have no name the probe may read)."""
        import jax

        live = {id(a): a for a in jax.live_arrays()}
        thread = threading.get_ident()
        with self._lock:
            prev = self._threads.get(thread)
            self._threads[thread] = set(live)
        if not check or prev is None or not ends_region(frame.f_code, frame.f_lasti):
            return None
        new = [a for i, a in live.items() if i not in prev]
        if not new:
            return None
        return [_shape_name(a) for a in new[:_MAX_NEW] if not _ready(a)]


def _shape_name(a: Any) -> str:
    spec = _spec(a)
    return f"a {spec} result" if spec != "?" else "a result"


_now = time.perf_counter  # bound at import, before ``install`` wraps it
_MAX_THREADS = 64
_STACK_DEPTH = 8
_SUBTRACTED, _STORED = 1, 2  # ``read_kind``: the read's value is subtracted from at once, or kept in a name
_ENDS: dict[tuple[CodeType, int], int] = {}
_LOADS = ("LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW")
_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


def ends_region(code: CodeType, offset: int) -> bool:
    """Whether the clock call at ``offset`` gives the minuend of a subtraction: used at once
    (``clock() - t0``) or stored in a name that the code subtracts from (``t1 = clock()`` ... ``t1 - t0``)."""
    return bool(read_kind(code, offset))


def read_kind(code: CodeType, offset: int) -> int:
    """0: the clock value at ``offset`` is no minuend; ``_SUBTRACTED``: subtracted from at once
    (``clock() - t0``); ``_STORED``: stored in a name that the code subtracts from (``t1 = clock()``)."""
    key = (code, offset)
    known = _ENDS.get(key)
    if known is None:
        known = _ENDS[key] = _minuend(code, offset)
        if len(_ENDS) > 4096:
            _ENDS.pop(next(iter(_ENDS)))
    return known


def _minuend(code: CodeType, offset: int) -> int:
    import dis

    ins = list(dis.get_instructions(code))
    # ``f_lasti`` may point past the call into its inline caches: the call is the last instruction at or before it.
    at = max((i for i, x in enumerate(ins) if x.offset <= offset), default=None)
    if at is None or at + 1 >= len(ins):
        return 0

    def subtracts(i: int) -> bool:  # ins[i] is the second operand's load: a name, or an attribute (self.t0)
        if i >= len(ins) or ins[i].opname not in _LOADS:
            return False
        while i + 1 < len(ins) and ins[i + 1].opname == "LOAD_ATTR":
            i += 1
        return i + 1 < len(ins) and ins[i + 1].opname == "BINARY_OP" and ins[i + 1].argrepr.strip() == "-"

    nxt = ins[at + 1]
    if subtracts(at + 1):
        return _SUBTRACTED
    if nxt.opname in _STORES:
        name = nxt.argval
        stored = any((x.opname in _LOADS and x.argval == name and subtracts(j + 1)) or _pair_minuend(ins, j, name)
                     for j, x in enumerate(ins[:-1]))
        return _STORED if stored else 0
    return 0


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
