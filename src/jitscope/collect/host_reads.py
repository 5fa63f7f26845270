"""Host reads of ``jax.Array`` values, per line of the program: the device-to-host round trips a loop makes.

``float(loss)``, ``bool(x > 0)``, ``.item()``, ``np.asarray(y)``, ``print(y)``: each copies an array's value
to the host and first waits for the computation that produces it (JAX dispatches asynchronously; a host
read is where the program waits). ``_jaxcompat.install_host_read_hook`` reports each read; this keeps, per
line of the program that asked (the first program frame above JAX's, reached through JAX's frames only),
how many reads there were (``block_until_ready`` waits among them), how many were of a different array than the
previous read at that line (a new result each time: one read per iteration of a loop; the leaves of one
``jax.device_get`` call are one batched transfer, counted once), how many had to wait (the value was not computed yet
when the read began) and the seconds the reads took. Reads that a library makes on the program's behalf
(a logger formatting an array, a checkpoint writer) are the library's and not counted.

Cost: only host reads pay: a few microseconds each for the frame walks (the program frame, the stack, the loop
index) on top of the copy; nothing else in the program is touched. The host's time between two syncs leaves that
overhead out (measured from the end of the previous read's bookkeeping to the start of this one's).
"""

from __future__ import annotations

import linecache
import threading
import time
import weakref
from dataclasses import dataclass
from types import FrameType
from typing import Any

from .._jaxcompat.runtime_hooks import device_get_leaves, install_host_read_hook, is_device_get, staging_now
from ..model import Location
from .loop_index import loop_index
from .program_frames import frame_kind, location, program_caller

MAX_SITES = 500
_perf = time.perf_counter  # bound at import, before watch wraps the clocks (``collect/clock_reads.py``)


@dataclass
class HostReadSite:
    """The host reads one line of the program made."""

    location: Location
    reads: int = 0
    fresh: int = 0  # reads of a different array than the previous read at this line
    waited: int = 0  # reads whose value was not computed yet when the read began
    seconds: float = 0.0  # time spent in the reads, waiting included
    shapes: dict[str, int] | None = None  # array shape/dtype (``f32[]``) -> reads
    # The enclosing ``for`` statement's int index at the reads (``collect/loop_index.py``): how many iterations
    # read, and how many iterations the loop went through from the first read to the last (each run of the loop
    # counted from its first read). None: no such loop around the line.
    iterations: int | None = None
    span: int | None = None
    last_index: int | None = None
    waits: int = 0  # of the reads, ``block_until_ready`` calls (a wait for the device with no copy)
    batch_left: int = 0  # reads still to come of one ``jax.device_get`` call (one batched transfer)
    # The loop model (module docstring): reads of a new array that repeat the previous read's program stack at this
    # line (an iteration of a loop around it, not another call of a helper from another line), the host's seconds
    # between two such reads, the reads' own seconds there, the seconds lost to the sync (per iteration the wait
    # or the host's time, whichever is less: what overlap could have hidden), and the iterations in which the
    # program ended a timed region (``clock() - t0``) between two syncs (a benchmark timing each step).
    repeats: int = 0
    host_seconds: float = 0.0
    loop_seconds: float = 0.0
    lost: float = 0.0
    timed: int = 0


class HostReadProbe:
    """Counts host reads per program line while installed (thread-safe; never raises into the program)."""

    def __init__(self) -> None:
        self.sites: dict[tuple[str, int], HostReadSite] = {}
        self._last: dict[tuple[str, int], Any] = {}  # site -> weakref to the array read last there
        self._lock = threading.Lock()
        self._uninstall: Any = None
        # (site, program stack) -> perf_counter at the end of the last such read's bookkeeping, and of the one
        # before: keyed by the stack too, so a helper line two callers in one loop reach (``log(a); log(b)``)
        # keeps one loop per caller
        self._prev: dict[tuple[tuple[str, int], tuple[Any, ...]], tuple[float, float | None]] = {}
        # site -> (the key in _prev of its last read, perf_counter at the end of its bookkeeping): the site's own
        # time between reads, from any stack. The loop's time is counted on it, once, however many callers in the
        # loop reach the line (per stack, two callers would each count the whole iteration).
        self._site_end: dict[tuple[str, int], tuple[Any, float]] = {}
        # ``ClockReadProbe.timed_between(before, sync, now)`` when wired: whether this thread ended, since the previous
        # sync, a timed region that began after the sync before it (a region around one sync: a benchmark's step).
        self.clock_timed: Any = None

    def install(self) -> HostReadProbe:
        self._uninstall = install_host_read_hook(self._on_read)
        return self

    def uninstall(self) -> None:
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None

    def _on_read(self, array: Any, seconds: float, was_ready: bool, caller: FrameType, what: str = "read") -> None:
        now = _perf()  # first: the host's time below leaves this hook's own overhead out
        if staging_now() or _in_jit_call():
            return  # JAX reading a constant while it traces, lowers or compiles: not the program's round trip
        frame = program_caller(caller)
        if frame is None or _in_callback(caller, frame) or _string_for_jax(caller):
            return
        batch = _device_get_call(caller, frame)
        frame = _past_generated(frame)
        key = (frame.f_code.co_filename, frame.f_lineno)
        index = loop_index(frame)
        with self._lock:
            site = self.sites.get(key)
            if site is None:
                if len(self.sites) >= MAX_SITES:
                    return
                site = self.sites[key] = HostReadSite(location(frame), shapes={})
            last = self._last.get(key)
            fresh = last is None or last() is not array
            try:
                self._last[key] = weakref.ref(array)
            except TypeError:
                self._last.pop(key, None)
            site.reads += 1
            site.waits += what == "wait"
            if site.batch_left and batch is not None:
                site.batch_left -= 1
                fresh = False  # a further leaf of one device_get: the same round trip
            elif batch is not None and (leaves := device_get_leaves(batch)) is not None and leaves > 1:
                site.batch_left = leaves - 1  # counted once per device_get, at its first read
            site.fresh += fresh
            if index is not None and index != site.last_index:
                last = site.last_index
                site.iterations = (site.iterations or 0) + 1
                site.span = (site.span or 0) + (index - last if last is not None and index > last else 1)
                site.last_index = index
            site.waited += not was_ready
            site.seconds += seconds
            spec = _spec(array)
            if site.shapes is not None and (spec in site.shapes or len(site.shapes) < 8):
                site.shapes[spec] = site.shapes.get(spec, 0) + 1
        if not fresh:
            # The same array again, or a further leaf of one device_get: no new sync, but the host's time to the
            # next one starts after it.
            last_read = self._site_end.get(key)
            with self._lock:
                if last_read is not None and last_read[0] in self._prev:
                    end = _perf()
                    self._prev[last_read[0]] = (end, self._prev[last_read[0]][1])
                    self._site_end[key] = (last_read[0], end)
            return
        pkey = (key, _stack(frame))
        prev = self._prev.get(pkey)
        if prev is not None:
            host = max(now - seconds - prev[0], 0.0)  # the host's own time since the last sync here
            last_read = self._site_end.get(key)
            # the host's time since the line's previous read from any stack: the loop's time, counted once
            between = max(now - seconds - last_read[1], 0.0) if last_read is not None else host
            timed = self.clock_timed is not None and self.clock_timed(prev[1], prev[0], now)
            with self._lock:
                site.repeats += 1
                site.host_seconds += between
                site.loop_seconds += between + seconds
                site.lost += min(0.0 if was_ready else seconds, host)
                site.timed += bool(timed)
        with self._lock:
            if len(self._prev) < MAX_SITES or pkey in self._prev:
                # last: the next read's host time starts after this bookkeeping
                end = _perf()
                self._prev[pkey] = (end, prev[0] if prev is not None else None)
                self._site_end[key] = (pkey, end)


_STACK_DEPTH = 8


def _stack(frame: FrameType) -> tuple[Any, ...]:
    """The read's call stack, ``(code, line)`` of the program frame and up to 7 frames out: equal at two reads
    when one loop around the line ran both, different when two lines call one helper (the assertions of a test).
    Taken for fresh reads only."""
    out = []
    f: FrameType | None = frame
    while f is not None and len(out) < _STACK_DEPTH:
        out.append((f.f_code, f.f_lineno))
        f = f.f_back
    return tuple(out)


def _device_get_call(caller: FrameType, program: FrameType) -> FrameType | None:
    """The frame of the ``jax.device_get`` call the program made for this read (it starts every leaf's copy before
    reading any: the reads are one batched round trip), or None when the read is not inside one. Its leaves are
    counted (``device_get_leaves``, a flatten of the whole argument) only at the first read of a batch."""
    f: FrameType | None = caller
    while f is not None and f.f_back is not program:
        f = f.f_back
    return f if f is not None and is_device_get(f) else None


_CALLBACK_FILES = ("callback.py", "debugging.py")


def _in_callback(caller: FrameType, program: FrameType) -> bool:
    """A read inside a host callback JAX runs during a call (jax.debug.print formatting its operands): JAX's
    read, not the program's."""
    f: FrameType | None = caller
    while f is not None and f is not program:
        if f.f_code.co_filename.endswith(_CALLBACK_FILES):
            return True
        f = f.f_back
    return False


def _past_generated(frame: FrameType) -> FrameType:
    """The program's line for a read made in generated code (a dataclass's ``__repr__``, exec'd from
    ``<string>``: no source a user can open): the first program frame further out that has source; the
    generated frame itself when there is none (``python -c``)."""
    f: FrameType | None = frame
    for _ in range(16):
        if f is None:
            break
        name = f.f_code.co_filename
        kind = frame_kind(name)
        if kind == "program" and not (name.startswith("<") and not linecache.getline(name, f.f_lineno)):
            return f
        if kind == "jitscope":
            break
        f = f.f_back
    return frame


_TO_STRING = ("__repr__", "__str__", "__format__")


def _string_for_jax(caller: FrameType) -> bool:
    """A read made to build a string JAX itself asked for (its debug info formats the function it
    transforms, ``str(fun)``, and a dataclass closed over in it prints its arrays): JAX's read, not the
    program's. The asker is the first frame outside the string conversion: past the array's own
    ``__repr__``/``__str__``/``__format__``, any object's conversion methods (a dataclass's generated
    ``__repr__``) and the standard library's helpers. A conversion the program asks for (``print(x)``,
    an f-string, even inside a function ``jax.tree.map`` calls) is the program's."""
    f: FrameType | None = caller
    converting = False
    for _ in range(32):
        if f is None:
            return False
        name = f.f_code.co_name
        kind = frame_kind(f.f_code.co_filename)
        if name in _TO_STRING:
            converting = True
        elif not converting:
            if kind != "jax":
                return False  # a plain read (float, np.asarray, .item()): no string is being built
        elif kind != "other":
            return kind == "jax"  # the first frame past the conversion: who asked for the string
        f = f.f_back
    return False


def _in_jit_call() -> bool:
    """True inside a jit call's slow path on this thread (its trace, lowering and compile)."""
    from . import monitoring

    return bool(getattr(monitoring._state, "calls", None))


def _spec(array: Any) -> str:
    try:
        from ..model import DTYPE_SHORT

        dt = str(array.dtype)
        return f"{DTYPE_SHORT.get(dt, dt)}[{','.join(map(str, array.shape))}]"
    except Exception:  # noqa: BLE001
        return "?"
