"""Stall watchdog: a trace, lowering, backend compile or first execution that runs longer than a
threshold, named while it is still running, with the thread's Python stack.

JAX records a ``jax.monitoring`` scalar (the start time) when each compile phase begins (since 0.6.1)
and a time span when it ends; between the two the phase is in progress. A daemon thread polls the
phases in progress a few times a second and reports one that has run past ``threshold`` seconds,
then again each time its running time doubles, until it ends. The report carries the function JAX
names, the phase, the seconds so far and the user's frames of the compiling thread
(``sys._current_frames``), so a compile that hangs is named before anyone kills the job.

The first execution of a freshly compiled program has no monitoring event. It starts when the
backend compile ends and lasts until its outputs are ready: while the calling thread is still inside
the jit call (a program with host callbacks runs there, synchronously: the thread's stack holds JAX's
execute frame, ``_jaxcompat.executing_code``), then, once the call has returned, until every output
array's public ``is_ready()`` is true (the usual asynchronous dispatch; the outputs are read at the
end of the Python-path call, ``_jaxcompat.install_fastpath_hook``). It is reported as phase
``execute`` with the calling thread's stack at that moment (where the program waits: often
``block_until_ready``). Only the first execution after each compile is watched; later calls take
the C++ fast path, which nothing here touches.

A thread stuck inside C without the GIL is still reported (the stack shown is where it entered).
Costs: one dictionary update per phase start and end and per Python-path jit call that follows a
compile; nothing on cache hits.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._format import shown_path
from .._jaxcompat import (
    COMPILE_EVENT,
    LOWER_EVENT,
    TRACE_EVENT,
    executing_code,
    install_fastpath_hook,
    is_program_file,
    unregister_listener,
)
from .._serde import Record

PHASES = {TRACE_EVENT: "trace", LOWER_EVENT: "lower", COMPILE_EVENT: "compile"}
POLL_SECONDS = 0.05
_STACK_FRAMES = 8
_GENERATED = frozenset(("__init__", "__eq__", "__hash__", "__repr__", "__setattr__", "__delattr__", "__post_init__"))


@dataclass
class Stall(Record):
    """A compile phase that ran past the threshold (one record per report: at the threshold, then at
    each doubling of its running time)."""

    function: str  # as JAX names the program: "jit(step)"
    phase: str  # trace | lower | compile | execute (the first execution after the compile)
    seconds: float  # running time when reported
    timestamp: float  # seconds since the watch started
    stack: list[str] = field(default_factory=list)  # the compiling thread's user frames, innermost last
    ended_after: float | None = None  # the phase's whole duration, once it ended (None: still running)


@dataclass
class _Running:
    phase: str
    function: str
    start: float  # time.time(), as JAX records it
    thread: int
    next_report: float
    reports: list[Stall] = field(default_factory=list)
    outputs: list[Any] | None = None  # execute: weak references to the outputs (None: still inside the call)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner.py")


def _user_stack(frame: Any) -> list[str]:
    """The user's frames of a thread, innermost last; stops at jitscope's own runner (what ran the program)."""
    out: list[str] = []
    while frame is not None and len(out) < _STACK_FRAMES:
        code = frame.f_code
        path = os.path.abspath(code.co_filename)
        if path == _RUNNER:  # jitscope's runner around the user's program: the user's stack ends here
            break
        if path.startswith(_PACKAGE + os.sep):  # jitscope's own hooks inside the user's calls
            frame = frame.f_back
            continue
        generated = code.co_filename == "<string>" and code.co_name in _GENERATED  # a dataclass's __init__
        # installed packages (pytest, a GC callback of hypothesis that ran mid-compile) are not the user's line
        if is_program_file(code.co_filename) and not generated:
            name = shown_path(code.co_filename)
            out.append(f"{name}:{frame.f_lineno} in {code.co_name}")
        frame = frame.f_back
    return out[::-1]


class StallWatchdog:
    """Report compile phases running longer than ``threshold`` seconds (``on_stall`` gets each report).

    ``t0`` is the time (``time.time()``) report timestamps count from (the watch's start).
    """

    def __init__(self, threshold: float, on_stall: Callable[[Stall], None] | None = None, t0: float = 0.0) -> None:
        if not threshold > 0:
            raise ValueError(f"stall threshold must be > 0 seconds, got {threshold}")
        self.threshold = threshold
        self.on_stall = on_stall
        self.t0 = t0 or time.time()
        self.stalls: list[Stall] = []
        self._running: dict[int, _Running] = {}  # thread id -> the phase it is in
        self._executing: dict[int, _Running] = {}  # thread id -> its first execution, still in the call
        self._pending_outputs: list[_Running] = []  # first executions the call returned from, not yet ready
        self._unhook: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.available = False

    def start(self) -> StallWatchdog:
        """Listen to phase starts and ends and start polling (a no-op on a JAX without start scalars)."""
        from jax import monitoring

        register = getattr(monitoring, "register_scalar_listener", None)
        if register is None:
            return self
        register(self._on_scalar)
        monitoring.register_event_time_span_listener(self._on_span)
        self._unhook = install_fastpath_hook(self._on_call_end, outputs=True)
        executing_code()  # resolved here: the watchdog thread never imports JAX modules under its lock
        self.available = True
        self._stop.clear()
        self._thread = threading.Thread(target=self._poll, name="jitscope-stall-watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop polling and listening; phases still running keep ``ended_after`` None."""
        if not self.available:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        now = time.time()
        with self._lock:  # first executions that finished since the last poll
            for run in [r for r in self._pending_outputs if _all_ready(r.outputs or [])]:
                self._pending_outputs.remove(run)
                _ended(run, now)
        unregister_listener("scalar", self._on_scalar)
        unregister_listener("span", self._on_span)
        if self._unhook is not None:
            self._unhook()
            self._unhook = None
        self.available = False

    # -- listeners (on the compiling thread) ------------------------------
    def _on_scalar(self, event: str, value: float, **kw: Any) -> None:
        phase = PHASES.get(event)
        if phase is None or not self.available:  # a JAX that cannot unregister keeps calling: ignore
            return
        tid = threading.get_ident()
        with self._lock:
            self._running[tid] = _Running(phase, str(kw.get("fun_name", "?")), float(value), tid, self.threshold)
            self._executing.pop(tid, None)  # a new phase: whatever compiled before ran no program here

    def _on_span(self, event: str, start: float, end: float, **kw: Any) -> None:
        if event not in PHASES:
            return
        tid = threading.get_ident()
        with self._lock:
            running = self._running.pop(tid, None)
            if running is not None and running.phase == "compile":  # its first execution starts now
                self._executing[tid] = _Running("execute", running.function, end, tid, self.threshold)
        if running is not None:
            # JAX's span can start later than its start scalar (a starved thread): never shorter than reported
            ended = max(end - start, time.time() - running.start)
            for stall in running.reports:
                stall.ended_after = ended

    def _on_call_end(self, effects: Any, fast: bool, executable: Any, pgle: Any, outputs: Any) -> None:
        """The end of a Python-path jit call: a first execution now waits only for its outputs."""
        tid = threading.get_ident()
        with self._lock:
            run = self._executing.pop(tid, None)
        if run is None:
            return
        refs = []
        for out in outputs or ():
            if callable(getattr(out, "is_ready", None)):
                try:
                    refs.append(weakref.ref(out))
                except TypeError:  # not weak-referenceable: not watched
                    pass
        run.outputs = refs
        if _all_ready(refs):
            _ended(run, time.time())
        else:
            with self._lock:
                self._pending_outputs.append(run)

    # -- the watchdog thread ------------------------------------------------
    def _poll(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self.check()

    def check(self, now: float | None = None) -> list[Stall]:
        """Report every phase past its next threshold now; returns the new reports."""
        now = time.time() if now is None else now
        with self._lock:
            for run in [r for r in self._pending_outputs if _all_ready(r.outputs or [])]:
                self._pending_outputs.remove(run)
                _ended(run, now)
            due = [r for r in self._running.values() if now - r.start >= r.next_report]
            due += [r for r in self._pending_outputs if now - r.start >= r.next_report]
            inside = [r for r in self._executing.values() if now - r.start >= r.next_report]
            frames = sys._current_frames() if due or inside else {}
            code = executing_code() if inside else None
            # still inside the jit call: a stall only while the thread runs the program (not, say,
            # Python work after an ahead-of-time .compile(), which no execution follows)
            due += [r for r in inside if code is not None and _in_code(frames.get(r.thread), code)]
            new = []
            for r in due:
                elapsed = now - r.start
                while r.next_report <= elapsed:
                    r.next_report *= 2  # again when its running time has doubled
                stall = Stall(r.function, r.phase, elapsed, max(now - self.t0, 0.0),
                              _user_stack(frames.get(r.thread)))
                r.reports.append(stall)
                self.stalls.append(stall)
                new.append(stall)
        for stall in new:
            if self.on_stall is not None:
                try:
                    self.on_stall(stall)
                except Exception:  # noqa: BLE001 - a broken display must not kill the watchdog
                    pass
        return new


def _all_ready(refs: list[Any]) -> bool:
    """Whether every output still alive is ready (a deleted or donated array counts as done)."""
    for ref in refs:
        out = ref()
        if out is None:
            continue
        try:
            if not out.is_ready():
                return False
        except Exception:  # noqa: BLE001 - deleted/donated: nothing left to wait for
            continue
    return True


def _ended(run: _Running, now: float) -> None:
    for stall in run.reports:  # to the watchdog's poll (a twentieth of a second)
        stall.ended_after = now - run.start


def _in_code(frame: Any, code: Any) -> bool:
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def phase_name(phase: str) -> str:
    """How a sentence names a phase: ``compile``, ..., ``first execution``."""
    return "first execution" if phase == "execute" else phase


def stall_line(stall: Stall) -> str:
    """One line for a terminal: ``jitscope: stall: compile of jit(step) running for 12.0 s at train.py:40 in step``."""
    where = f" at {stall.stack[-1]}" if stall.stack else ""
    return f"jitscope: stall: {phase_name(stall.phase)} of {stall.function} running for {stall.seconds:.1f} s{where}"
