"""Recording a watch: subscribe to the capture engine, number each compile of the user's functions,
stream it to a JSONL file as it happens.

Each compile's program is fingerprinted (``program_text.py``); each distinct program is kept once, in
``programs`` (by fingerprint; compressed, size-capped) and as a ``{"type": "program", ...}`` line in the
events file written before the first event that names it, so ``jitscope diff`` can show how a
function's program changed between two runs.

Recording only. The reason for each compile is given by the ``classify`` callable the caller
passes in (``analyze.reasons.ReasonHistory.classify``): listeners such as ``no_recompile`` need
it the moment the compile finishes, yet a collector imports no analyzer. The command module
``_watch_session.py`` puts collector, history and result together.
"""

from __future__ import annotations

import json
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import IO, Any

from ..errors import UsageError
from ..model import CompileEvent, Reason
from . import monitoring
from .distributed import process_identity, process_path
from .monitoring import RawCompile
from .program_text import ProgramText, program_text
from .test_scope import current_test

MAX_PROGRAM_TEXT_BYTES = 8 << 20  # compressed program texts kept per run; beyond, fingerprints and constants only

Listener = Callable[[CompileEvent], None]
Observer = Callable[[RawCompile, CompileEvent, str], None]  # (raw, event, kind): every user trace, compiled or not
Classifier = Callable[[CompileEvent], Reason]
ProcessHook = Callable[[int, int], None]  # (process_index, process_count), once, in a multi-process job


def pid_path(path: str | os.PathLike[str], pid: int) -> str:
    """``events.jsonl`` -> ``events.<pid>.jsonl``: where a forked child writes what it records."""
    root, ext = os.path.splitext(os.fspath(path))
    return f"{root}.{pid}{ext}"


_RUNNING: weakref.WeakSet[WatchCollector] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # The child inherits the parent's collectors and open events file; appending to it would mix two
    # processes' indexes in one file. The child starts over: its own file, its own events, its pid.
    for c in list(_RUNNING):
        c._forked_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class WatchCollector:
    """Records every compile of the user's jitted functions between ``start()`` and ``stop()``.

    ``listeners`` are called with each finished ``CompileEvent`` (reason filled in), on the
    compiling thread; a listener that raises makes that jitted call raise (``no_recompile``
    relies on this). ``events_path``: JSONL, one event per line, flushed per event.
    """

    def __init__(self, events_path: str | os.PathLike[str] | None = None, explain: bool = True,
                 listeners: list[Listener] | None = None, classify: Classifier | None = None,
                 observe: Observer | None = None, on_process: ProcessHook | None = None) -> None:
        self.events: list[CompileEvent] = []
        # Traces and lowerings of user functions that produced no backend compile (``eval_shape``,
        # ``make_jaxpr``, ``.lower()``, a trace that raised): (kind, event). Shown, never counted.
        self.uncompiled: list[tuple[str, CompileEvent]] = []
        self.listeners: list[Listener] = list(listeners or [])
        self.programs: dict[str, ProgramText] = {}  # fingerprint -> the normalised program (``program_text.py``)
        self._program_bytes = 0
        self.internal_compiles = 0
        self.internal_seconds = 0.0
        self.cache_seconds_saved = 0.0
        self.explain = explain
        self._events_path = events_path
        self._file: IO[str] | None = None
        self._lock = threading.RLock()
        self._classify = classify
        self._observe = observe  # runtime findings (the command passes the analyzer in, as with classify)
        self.pid = os.getpid()
        self.forked_from: int | None = None  # set in a forked child: the parent's pid
        # (process_index, process_count) once ``jax.distributed.initialize`` ran with 2+ processes.
        self.process: tuple[int, int] | None = None
        self._on_process = on_process
        self._t0 = 0.0
        self._t0_perf = 0.0
        self._t1_perf: float | None = None
        self.running = False
        self._started_once = False
        self._wall_before = 0.0

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> WatchCollector:
        """Begin recording (installs JAX's hooks if this is the first active collector)."""
        if self._events_path is not None:
            mode = "a" if self._started_once else "w"
            try:
                os.makedirs(os.path.dirname(os.path.abspath(self._events_path)), exist_ok=True)
                self._file = open(self._events_path, mode, encoding="utf-8")  # noqa: SIM115
            except OSError as e:
                raise UsageError(f"cannot write events file {self._events_path}: {e.strerror}") from None
        if not self._started_once:
            self._t0 = monitoring.now()  # event timestamps stay relative to the first start
        self._started_once = True
        self._t0_perf = time.perf_counter()
        self._t1_perf = None
        monitoring.subscribe(self, explain=self.explain)
        self.running = True
        _RUNNING.add(self)
        return self

    def _forked_child(self) -> None:
        pid = os.getpid()
        self.events = []
        self.programs = {}
        self._program_bytes = 0
        self.forked_from = self.pid
        self.pid = pid
        if self._file is not None and self._events_path is not None:
            try:
                self._file.close()  # the child's copy of the descriptor; flushed per event, so nothing pending
            except OSError:
                pass
            self._events_path = pid_path(self._events_path, pid)
            try:
                self._file = open(self._events_path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError:
                self._file = None

    def note_process(self) -> tuple[int, int] | None:
        """Learn this process's index in a ``jax.distributed`` job (known only after the program's
        ``jax.distributed.initialize``): from then on every event carries it, events recorded before
        get it too, and the events file moves to its per-process name (``run.jsonl`` ->
        ``run.p1.jsonl``, rewritten whole: N processes given one path all opened it). Cheap; called
        at each compile and at the end."""
        if self.process is not None:
            return self.process
        found = process_identity()
        if found is None:
            return None
        hook = None
        with self._lock:
            if self.process is not None:
                return self.process
            self.process = found
            index = found[0]
            for e in self.events:
                e.process_index = index
            for _, e in self.uncompiled:
                e.process_index = index
            if self._events_path is not None:
                self._move_events_file(process_path(self._events_path, index))
            hook = self._on_process
        if hook is not None:
            hook(*found)
        return found

    def _move_events_file(self, new_path: str) -> None:
        old_path, old_file = self._events_path, self._file
        self._events_path = new_path
        if old_file is None:
            return  # not recording now: the next start() opens the new name
        try:
            f = open(new_path, "w", encoding="utf-8")  # noqa: SIM115
            for e in self.events:
                f.write(json.dumps(e.to_dict(), allow_nan=False) + "\n")
            f.flush()
        except OSError:
            return  # keep writing where we were: losing events is worse than a shared name
        self._file = f
        try:
            old_file.close()
            os.unlink(old_path)  # type: ignore[arg-type]  # every process removes the shared name; one wins
        except OSError:
            pass

    @property
    def events_path(self) -> str | None:
        """Where events are written now (per-process once the process index is known)."""
        return None if self._events_path is None else os.fspath(self._events_path)

    def stop(self) -> None:
        """Stop recording; still-pending compiles (interrupted mid-compile) are recorded first."""
        if not self.running:
            return
        try:
            monitoring.unsubscribe(self)
            self.note_process()
        finally:
            self.running = False
            _RUNNING.discard(self)
            self._t1_perf = time.perf_counter()
            self._wall_before += self._t1_perf - self._t0_perf
            if self._file is not None:
                self._file.close()
                self._file = None

    @property
    def cache_info(self) -> tuple[bool, str | None, float | None]:
        """JAX's persistent compilation cache settings now: (enabled, directory, min compile seconds)."""
        import jax

        cache_dir = jax.config.jax_compilation_cache_dir
        enabled = bool(cache_dir) and bool(jax.config.jax_enable_compilation_cache)
        return enabled, cache_dir, jax.config.jax_persistent_cache_min_compile_time_secs

    @property
    def started_at(self) -> float:
        """When recording first started (``time.time()``): event timestamps count from here."""
        return self._t0

    @property
    def wall_seconds(self) -> float:
        """Seconds spent watching (summed over start/stop periods)."""
        if self.running:
            return self._wall_before + time.perf_counter() - self._t0_perf
        return self._wall_before

    # -- engine callbacks ----------------------------------------------------
    def on_cache_saving(self, seconds: float) -> None:
        with self._lock:
            self.cache_seconds_saved += max(seconds, 0.0)

    def on_compile(self, raw: RawCompile) -> None:
        if not raw.user:
            with self._lock:
                if "compile" in raw.phases:
                    self.internal_compiles += 1
                self.internal_seconds += sum(raw.phases.values())
            return
        if self.process is None:
            self.note_process()
        with self._lock:
            starts = {k: v - self._t0 for k, v in raw.phase_starts.items()}
            kind = raw.kind
            event = CompileEvent(
                function=raw.function, definition=raw.definition, call_site=raw.call_site,
                signature=raw.signature, phases=dict(raw.phases), cache_hit=raw.cache_hit,
                timestamp=min(starts.values()) if starts else 0.0, index=len(self.events),
                function_id=raw.function_id, phase_starts=starts, bindings=raw.bindings, module=raw.module,
                transform=raw.transform if raw.transformed else None, pid=self.pid,
                persistent_cache=raw.persistent_cache, compile_cpu_seconds=raw.compile_cpu_seconds,
                jit_options=raw.jit_options, test=current_test(),
                process_index=self.process[0] if self.process else None,
                reason=Reason("other", "", raw.explanation) if raw.explanation else None)
            if raw.transformed and event.transform is None:
                event.transform = "transformed"
            if kind != "compile":
                # Not a compile: kept out of the numbering, the reason history (a later real
                # compile is not "cache evicted"), the events file, listeners and budgets.
                event.index = len(self.uncompiled)
                self.uncompiled.append((kind, event))
                if self._observe is not None:
                    self._observe(raw, event, kind)
                return
            program = self._program(raw, event)
            if self._classify is not None:
                event.reason = self._classify(event)
            self.events.append(event)
            if self._file is not None:
                if program is not None:
                    self._file.write(json.dumps({"type": "program", **program.to_dict()}, allow_nan=False) + "\n")
                self._file.write(json.dumps(event.to_dict(), allow_nan=False) + "\n")
                self._file.flush()
            listeners = list(self.listeners)
        if self._observe is not None:
            self._observe(raw, event, kind)
        for cb in listeners:
            cb(event)


    def _program(self, raw: RawCompile, event: CompileEvent) -> ProgramText | None:
        """Fill the event's fingerprints; return the program's table entry when it is new to this run."""
        p = raw.program
        if p is None:
            return None
        event.fingerprint, event.constants_blind_fingerprint = p.fingerprint, p.constants_blind_fingerprint
        entry = self.programs.get(p.fingerprint)
        if entry is not None:
            raw.live["program"] = entry
            return None
        entry = program_text(p, keep_text=self._program_bytes < MAX_PROGRAM_TEXT_BYTES)
        self._program_bytes += len(entry.text or "")
        self.programs[p.fingerprint] = raw.live["program"] = entry
        return entry


def read_events(path: str | os.PathLike[str]) -> list[CompileEvent]:
    """Read a JSONL events file (a trailing partial line from a crash is ignored)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                data: Any = json.loads(line)
            except json.JSONDecodeError:
                break
            if data.get("type") == "program":  # a program's normalised text (read_programs)
                continue
            out.append(CompileEvent.from_dict(data))
    return out


def read_programs(path: str | os.PathLike[str]) -> dict[str, ProgramText]:
    """The ``{"type": "program"}`` lines of a JSONL events file, by fingerprint."""
    out: dict[str, ProgramText] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                data: Any = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and data.pop("type", None) == "program":
                entry = ProgramText.from_dict(data)
                out[entry.fingerprint] = entry
    return out
