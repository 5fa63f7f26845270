"""A watch session: subscribe to the capture engine, number and explain each compile,
stream it to a JSONL file as it happens, and build the ``WatchResult`` at the end."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from ..analyze import reasons as reasons_mod
from ..analyze import watch_summary
from ..errors import UsageError
from ..model import CompileEvent, Environment, Location, Reason
from ..results.watch import WatchResult, recompiles
from . import monitoring
from .monitoring import RawCompile

Listener = Callable[[CompileEvent], None]


class WatchCollector:
    """Records every compile of the user's jitted functions between ``start()`` and ``stop()``.

    ``listeners`` are called with each finished ``CompileEvent`` (reason filled in), on the
    compiling thread; a listener that raises makes that jitted call raise (``no_recompile``
    relies on this). ``events_path``: JSONL, one event per line, flushed per event.
    """

    def __init__(self, events_path: str | os.PathLike[str] | None = None, explain: bool = True,
                 listeners: list[Listener] | None = None) -> None:
        self.events: list[CompileEvent] = []
        self.listeners: list[Listener] = list(listeners or [])
        self.internal_compiles = 0
        self.internal_seconds = 0.0
        self.cache_seconds_saved = 0.0
        self.explain = explain
        self._events_path = events_path
        self._file: IO[str] | None = None
        self._lock = threading.RLock()
        self._history: dict[tuple[str, str, int], list[CompileEvent]] = {}
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
        return self

    def stop(self) -> None:
        """Stop recording; still-pending compiles (interrupted mid-compile) are recorded first."""
        if not self.running:
            return
        try:
            monitoring.unsubscribe(self)
        finally:
            self.running = False
            self._t1_perf = time.perf_counter()
            self._wall_before += self._t1_perf - self._t0_perf
            if self._file is not None:
                self._file.close()
                self._file = None

    @property
    def wall_seconds(self) -> float:
        """Seconds spent watching (summed over start/stop periods)."""
        if self.running:
            return self._wall_before + time.perf_counter() - self._t0_perf
        return self._wall_before

    def seed_history(self, events: list[CompileEvent]) -> None:
        """Treat ``events`` (from an enclosing session) as earlier compiles when explaining new ones."""
        with self._lock:
            for e in events:
                self._history.setdefault(reasons_mod.function_key(e), []).append(e)

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
        with self._lock:
            starts = {k: v - self._t0 for k, v in raw.phase_starts.items()}
            event = CompileEvent(
                function=raw.function, definition=raw.definition, call_site=raw.call_site,
                signature=raw.signature, phases=dict(raw.phases), cache_hit=raw.cache_hit,
                timestamp=min(starts.values()) if starts else 0.0, index=len(self.events),
                function_id=raw.function_id, phase_starts=starts,
                transform=raw.transform if raw.transformed else None,
                reason=Reason("other", "", raw.explanation) if raw.explanation else None)
            if raw.transformed and event.transform is None:
                event.transform = "transformed"
            # classify compares only with compiles under the same transformation (grad of f is
            # a different program from f: its first compile is a first compile, not a recompile).
            hist = self._history.setdefault(reasons_mod.function_key(event), [])
            event.reason = reasons_mod.classify(event, hist)
            hist.append(event)
            self.events.append(event)
            if self._file is not None:
                self._file.write(json.dumps(event.to_dict(), allow_nan=False) + "\n")
                self._file.flush()
            listeners = list(self.listeners)
        for cb in listeners:
            cb(event)

    # -- result --------------------------------------------------------------
    def result(self, program: str = "", argv: list[str] | None = None, exit_code: int | None = None,
               max_compiles: int | None = None, fail_on_recompile: bool = False) -> WatchResult:
        """The run so far as a ``WatchResult`` (safe to call while running)."""
        import jax

        with self._lock:
            events = list(self.events)
        wall = self.wall_seconds
        cache_dir = jax.config.jax_compilation_cache_dir
        enabled = bool(cache_dir) and bool(jax.config.jax_enable_compilation_cache)
        cache = watch_summary.persistent_cache_info(
            events, enabled, cache_dir, jax.config.jax_persistent_cache_min_compile_time_secs,
            self.cache_seconds_saved)
        return WatchResult(
            env=Environment.capture(), program=program, argv=list(argv or []), exit_code=exit_code,
            wall_seconds=wall, events=events, functions=watch_summary.summarize_functions(events, wall),
            fixes=watch_summary.suggest_fixes(events), internal_compiles=self.internal_compiles,
            internal_seconds=self.internal_seconds, persistent_cache=cache, max_compiles=max_compiles,
            fail_on_recompile=fail_on_recompile,
            violations=budget_violations(events, max_compiles, fail_on_recompile))


def budget_violations(events: list[CompileEvent], max_compiles: int | None, fail_on_recompile: bool) -> list[str]:
    """One line per budget breach: too many compiles, or any recompile when that is forbidden."""
    out = []
    if max_compiles is not None and len(events) > max_compiles:
        out.append(f"{len(events)} compiles, budget is {max_compiles}")
    if fail_on_recompile:
        for e in recompiles(events):  # each has a reason
            out.append(f"recompile #{e.index} of {e.function}{_at(e.call_site)}: "
                       f"{e.reason.category}: {e.reason.detail}")  # type: ignore[union-attr]
    return out


def _at(loc: Location | None) -> str:
    return f" at {loc.file}:{loc.line}" if loc else ""


def describe(event: CompileEvent) -> str:
    """One line for messages: function, reason and call site."""
    r = event.reason
    why = f"{r.category}: {r.detail}" if r else "unknown reason"
    return f"{event.function}{_at(event.call_site)} compiled ({why})"


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
            out.append(CompileEvent.from_dict(data))
    return out
