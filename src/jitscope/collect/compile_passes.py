"""Record what XLA does during one backend compile: the profiler's host trace events, raw.

XLA wraps every pass, pass pipeline and backend step in a profiler ``TraceMe`` (``layout-assignment``,
``HLO passes after layout assignment (jit_f)``, ``CpuCompiler::RunBackend``, ...). Running the compile
inside ``jax.profiler.start_trace`` / ``stop_trace`` (public API) writes those events to an
``.xplane.pb`` file that ``jax.profiler.ProfileData`` reads back: planes -> lines (one per thread) ->
events (``name``, ``start_ns``, ``duration_ns``). This module keeps the host planes' events as plain
records (``CompileTrace``); ``analyze/compile_passes.py`` turns them into per-pass seconds.

JAX's own ``/jax/core/compile/backend_compile_duration`` span of the same compile is recorded next
to the events, so the analysis can say how much of the compile the passes account for.

Only one profiler session can run in a process: when one is already running (the user's own
``jax.profiler.trace``, or another thread compiling under ``watch --dump``), the compile still runs
and the trace says why it has no events. The Python tracer is switched off (where JAX has
``ProfileOptions``): it would add an event per Python call and slow the compile it measures.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import _jaxcompat as compat

BACKEND_COMPILE_EVENT = compat.COMPILE_EVENT


@dataclass
class TraceEvent:
    """One profiler event on one thread (``line`` indexes ``CompileTrace.lines``); not serialised."""

    line: int
    name: str
    start_ns: float
    duration_ns: float

    @property
    def end_ns(self) -> float:
        return self.start_ns + self.duration_ns


@dataclass
class CompileTrace:
    """The host events recorded while one program compiled, and JAX's span of that compile.

    ``error`` is one line saying why there are no events (no profiler in this JAX, a profile
    already running, ...); ``backend_compile_s`` is None when JAX reported no backend compile
    (a persistent-cache load).
    """

    lines: list[str] = field(default_factory=list)  # thread names, e.g. tf_PjRtCompilerThreadPool/123
    events: list[TraceEvent] = field(default_factory=list)
    backend_compile_s: float | None = None
    module_name: str = ""
    error: str = ""
    pending: str = ""  # a profile written but not read yet (``profile_compile(..., log_root=...)``)


def profiler_available() -> str | None:
    """None when this JAX can trace a compile, else one line saying what is missing."""
    try:
        import jax.profiler as prof
    except ImportError as e:  # pragma: no cover - every supported JAX has jax.profiler
        return f"jax.profiler cannot be imported ({e})"
    for name in ("start_trace", "stop_trace", "ProfileData"):
        if getattr(prof, name, None) is None:  # JAX 0.6's jax.profiler.ProfileData is None (its jaxlib lacks it)
            import jax

            return f"JAX {jax.__version__} cannot read profiles back (jax.profiler.{name} is missing; JAX 0.8.3 and later have it)"
    return None


_LOCK = threading.Lock()  # one profiled compile at a time in this process


def profile_compile(compile_fn: Callable[[], Any], module_name: str = "",
                    log_root: str | None = None) -> tuple[Any, CompileTrace]:
    """Run ``compile_fn()`` (a backend compile, e.g. ``lowered.compile``) under the profiler.

    Returns what ``compile_fn`` returned and the ``CompileTrace``. Exceptions from ``compile_fn``
    propagate (the trace is then discarded); a profiler that cannot start never stops the compile.

    With ``log_root`` (a directory the caller removes later), the profile is written under it and
    only read by ``read_pending``: ``watch --dump`` profiles inside JAX's backend-compile span, and
    reading the file and removing its directory there (~10 ms) would count as compile time.
    """
    trace = CompileTrace(module_name=module_name)
    missing = profiler_available()
    if missing is not None:
        trace.error = missing
        return compile_fn(), trace
    if not _LOCK.acquire(blocking=False):
        trace.error = "another compile was being profiled at the same time (one profiler per process)"
        return compile_fn(), trace
    try:
        return _profiled(compile_fn, trace, log_root)
    finally:
        _LOCK.release()


def read_pending(trace: CompileTrace) -> CompileTrace:
    """Read the profile a deferred ``profile_compile`` wrote (no-op when there is none); ``trace``."""
    if trace.pending and not trace.error:
        _read(trace.pending, trace)
    trace.pending = ""
    return trace


def _profiled(compile_fn: Callable[[], Any], trace: CompileTrace,
              log_root: str | None) -> tuple[Any, CompileTrace]:
    import jax

    spans: list[float] = []
    me = threading.get_ident()

    def on_duration(event: str, seconds: float, **_: Any) -> None:
        if event == BACKEND_COMPILE_EVENT and threading.get_ident() == me:
            spans.append(seconds)

    log_dir = tempfile.mkdtemp(prefix="jitscope-passes-", dir=log_root)
    try:
        try:
            _start(log_dir)
        except Exception as e:  # noqa: BLE001 - e.g. "Profile has already been started"
            trace.error = f"the profiler did not start ({type(e).__name__}: {e})"
            return compile_fn(), trace
        jax.monitoring.register_event_duration_secs_listener(on_duration)
        try:
            out = compile_fn()
        finally:
            compat.unregister_listener("duration", on_duration)
            try:
                jax.profiler.stop_trace()
            except Exception as e:  # noqa: BLE001
                trace.error = f"the profiler did not stop cleanly ({type(e).__name__}: {e})"
        trace.backend_compile_s = spans[-1] if spans else None
        if log_root is not None:
            trace.pending = log_dir
        elif not trace.error:
            _read(log_dir, trace)
        return out, trace
    finally:
        if log_root is None:
            shutil.rmtree(log_dir, ignore_errors=True)


def _start(log_dir: str) -> None:
    import jax.profiler as prof

    options_cls = getattr(prof, "ProfileOptions", None)
    if options_cls is None:  # older JAX: no options, default tracers
        prof.start_trace(log_dir)
        return
    options = options_cls()
    if hasattr(options, "python_tracer_level"):
        options.python_tracer_level = 0
    prof.start_trace(log_dir, profiler_options=options)


def _read(log_dir: str, trace: CompileTrace) -> None:
    files = sorted(glob.glob(os.path.join(log_dir, "**", "*.xplane.pb"), recursive=True), key=os.path.getmtime)
    if not files:
        trace.error = "the profiler wrote no .xplane.pb file"
        return
    _read_file(files[-1], trace)


def trace_from_file(path: str, backend_compile_s: float | None = None, module_name: str = "") -> CompileTrace:
    """A ``CompileTrace`` from an ``.xplane.pb`` profile of one compile written elsewhere (another
    machine, a GPU; ``jax.profiler.trace`` around a ``.compile()``)."""
    trace = CompileTrace(backend_compile_s=backend_compile_s, module_name=module_name)
    missing = profiler_available()
    if missing is not None:
        trace.error = missing
    else:
        _read_file(path, trace)
    return trace


def _read_file(path: str, trace: CompileTrace) -> None:
    import jax.profiler as prof

    try:
        data = prof.ProfileData.from_file(path)
        for plane in data.planes:
            if not plane.name.startswith("/host:") or plane.name == "/host:metadata":
                continue  # device planes hold kernels (GPU autotuning), not compiler passes
            for line in plane.lines:
                index = len(trace.lines)
                trace.lines.append(str(line.name))
                for ev in line.events:  # zero-length markers too: where a thread started a task
                    trace.events.append(TraceEvent(index, str(ev.name), float(ev.start_ns),
                                                   max(0.0, float(ev.duration_ns))))
    except Exception as e:  # noqa: BLE001 - an unreadable profile: say so, keep the compile
        trace.error = f"the profile could not be read ({type(e).__name__}: {e})"
        trace.lines, trace.events = [], []
