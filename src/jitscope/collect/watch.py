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

import contextlib
import json
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from .._files import SoftFile, open_exclusive, process_token
from .._version import __version__
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


def pid_path(path: str | os.PathLike[str], token: str | None = None) -> str:
    """``events.jsonl`` -> ``events.<pid>-<host>-<random>.jsonl``: where a forked child writes what it
    records (``_files.process_token``: no two processes share it, whatever their pids)."""
    root, ext = os.path.splitext(os.fspath(path))
    return f"{root}.{token or process_token()}{ext}"


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
    relies on this). ``events_path``: JSONL, one event per line, flushed per event. ``exclusive``: the
    events file is a per-process name in a shared directory (``JITSCOPE=watch``): created with
    ``O_EXCL | O_NOFOLLOW``, never through a link or over a file (a forked child's file always is).
    ``lazy``: it is created at the first compile; a failure then is said once (``SoftFile``), never raised.
    """

    def __init__(self, events_path: str | os.PathLike[str] | None = None, explain: bool = True,
                 listeners: list[Listener] | None = None, classify: Classifier | None = None,
                 observe: Observer | None = None, on_process: ProcessHook | None = None,
                 exclusive: bool = False, lazy: bool = False) -> None:
        self.exclusive = exclusive
        self.lazy = lazy  # the events file is created at the first compile (nothing for a process that has none)
        self._unopened = False
        self.events: list[CompileEvent] = []
        # Traces and lowerings of user functions that produced no backend compile (``eval_shape``,
        # ``make_jaxpr``, ``.lower()``, a trace that raised): (kind, event). Shown, never counted.
        self.uncompiled: list[tuple[str, CompileEvent]] = []
        self.listeners: list[Listener] = list(listeners or [])
        self.programs: dict[str, ProgramText] = {}  # fingerprint -> the normalised program (``program_text.py``)
        self._program_bytes = 0
        self.internal_compiles = 0
        self.internal_seconds = 0.0
        self.internal_routines: dict[str, list[float]] = {}  # module name -> [compiles, seconds]
        self.cache_seconds_saved = 0.0
        self.explain = explain
        self._events_path = events_path
        self._file: SoftFile | None = None  # a failing write is said once, never raised into the program
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
        if not self._started_once:
            self._t0 = monitoring.now()  # event timestamps stay relative to the first start
        if self._events_path is not None and self.lazy and not self._started_once:
            self._unopened = True
        elif self._events_path is not None:
            mode = "a" if self._started_once else "w"
            try:
                os.makedirs(os.path.dirname(os.path.abspath(self._events_path)), exist_ok=True)
                if self.exclusive and not self._started_once:
                    f = open_exclusive(self._events_path)
                else:
                    f = open(self._events_path, mode, encoding="utf-8")  # noqa: SIM115
                self._file = SoftFile(f, os.fspath(self._events_path))
            except OSError as e:
                raise UsageError(f"cannot write events file {self._events_path}: {e.strerror}") from None
            if mode == "w":
                self._file.write(self._header())
        self._started_once = True
        self._t0_perf = time.perf_counter()
        self._t1_perf = None
        monitoring.subscribe(self, explain=self.explain)
        self.running = True
        _RUNNING.add(self)
        return self

    def _open_lazily(self) -> None:
        """Create the events file now, at the first compile (``lazy``); a failure is said once."""
        self._unopened = False
        path = os.fspath(self._events_path)  # type: ignore[arg-type]
        soft = SoftFile(None, path)
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            soft.file = open_exclusive(path) if self.exclusive else open(path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            soft.fail(e)
        self._file = soft
        soft.write(self._header())

    def _header(self) -> str:
        """The events file's first line: which run this is. A run that compiled nothing is this one line, so
        an empty file is never a run (a crash before watching started, a lost file)."""
        return json.dumps({"type": "run", "jitscope": __version__, "pid": self.pid, "started_at": self._t0}) + "\n"

    def _forked_child(self) -> None:
        pid = os.getpid()
        self.events = []
        self.programs = {}
        self._program_bytes = 0
        self.forked_from = self.pid
        self.pid = pid
        if self._events_path is not None and self._unopened:
            self._events_path = pid_path(self._events_path)  # created at the child's first compile
            self.exclusive = True
        elif self._file is not None and self._events_path is not None:
            self._file.close()  # the child's copy of the descriptor; flushed per event, so nothing pending
            self._events_path = pid_path(self._events_path)
            self.exclusive = True  # a name of this process only: never through a link, never over a file
            try:
                self._file = SoftFile(open_exclusive(self._events_path), self._events_path)
                self._file.write(self._header())
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
        f = None
        try:
            f = open_exclusive(new_path) if self.exclusive else open(new_path, "w", encoding="utf-8")  # noqa: SIM115
            f.write(self._header())
            for e in self.events:
                f.write(json.dumps(e.to_dict(), allow_nan=False) + "\n")
            f.flush()
        except OSError:
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
            return  # keep writing where we were: losing events is worse than a shared name
        self._file = SoftFile(f, new_path)
        old_file.close()
        try:
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
                seconds = sum(raw.phases.values())
                if "compile" in raw.phases:
                    self.internal_compiles += 1
                self.internal_seconds += seconds
                row = self.internal_routines.setdefault(raw.module_name or raw.function or "?", [0, 0.0])
                row[0] += 1 if "compile" in raw.phases else 0
                row[1] += seconds
            return
        if self.process is None:
            self.note_process()
        with self._lock:
            starts = {k: v - self._t0 for k, v in raw.phase_starts.items()}
            kind = raw.kind
            event = CompileEvent(
                function=raw.function, definition=raw.definition, call_site=raw.call_site,
                library_site=raw.library_site, wrapper=raw.wrapper,
                signature=raw.signature, phases=dict(raw.phases), cache_hit=raw.cache_hit,
                timestamp=min(starts.values()) if starts else 0.0, index=len(self.events),
                function_id=raw.function_id, phase_starts=starts, bindings=raw.bindings, module=raw.module,
                transform=raw.transform if raw.transformed else None, pid=self.pid,
                persistent_cache=raw.persistent_cache, rebuild=raw.rebuild,
                compile_cpu_seconds=raw.compile_cpu_seconds, jit_options=raw.jit_options, test=current_test(),
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
            if self._unopened:
                self._open_lazily()
            if self._file is not None:  # a full disk, EIO, a closed pipe: said once, never raised here
                text = json.dumps(event.to_dict(), allow_nan=False) + "\n"
                if program is not None:
                    text = json.dumps({"type": "program", **program.to_dict()}, allow_nan=False) + "\n" + text
                self._file.write(text)
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
            if "type" in data:  # the run's header, a program's normalised text (read_programs): not compiles
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
