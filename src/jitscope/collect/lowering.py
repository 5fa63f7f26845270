"""Walk one function through jit's AOT stages and time each: trace, lower, compile, run.

Uses only the public staged API: ``jax.jit(f).trace(*args)`` -> ``.jaxpr``, ``.lower()`` ->
``.as_text()`` (StableHLO and pre-optimisation HLO), ``.compile()`` -> ``.as_text()`` (optimised
HLO), ``.cost_analysis()``, ``.memory_analysis()``. Every trace goes through a fresh wrapper
function so JAX's trace cache never hides a trace (a second ``jax.jit(f).trace`` of the same
function with the same arguments would otherwise not run Python again).
"""

from __future__ import annotations

import contextlib
import functools
import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._progress import stage
from ..model import Timing
from ._errors import error_line
from .clock import block, measure, persistent_cache_disabled, time_once


@dataclass
class Stages:
    """Live artifacts of one function's trip through jit (not serialised; analyzers read it)."""

    traced: Any = None
    lowered: Any = None
    compiled: Any = None
    closed_jaxpr: Any = None
    jaxpr_text: str = ""
    stablehlo_text: str = ""
    hlo_before_text: str = ""
    hlo_after_text: str = ""
    cost: dict[str, float] = field(default_factory=dict)
    lowered_cost: dict[str, float] = field(default_factory=dict)  # XLA's cost model before optimisation
    memory: dict[str, int] = field(default_factory=dict)
    timings: dict[str, Timing] = field(default_factory=dict)
    output: Any = None
    compile_trace: Any = None  # collect.compile_passes.CompileTrace of the compile, when profiled
    trace_stdout: str = ""
    errors: dict[str, str] = field(default_factory=dict)  # stage -> one-line failure


def fresh_entry(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object that calls ``fn``: jit's trace cache keys on identity, so this retraces."""

    @functools.wraps(fn)
    def _jitscope_entry(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return _jitscope_entry


def jit_fresh(fn: Callable[..., Any], static_argnames: tuple[str, ...] = (),
              static_argnums: tuple[int, ...] = (), jit_options: dict[str, Any] | None = None) -> Any:
    """``jax.jit`` of a ``fresh_entry`` of ``fn``: its ``.trace`` always runs the Python body.

    ``jit_options``: more ``jax.jit`` keywords (the ``in_shardings`` / ``out_shardings`` of the
    user's jit object)."""
    import jax

    return jax.jit(fresh_entry(fn), static_argnames=static_argnames or None, static_argnums=static_argnums or None,
                   **(jit_options or {}))


@dataclass
class TimedStages:
    """What ``time_stages`` produced: the staged objects that exist and the seconds of each stage that ran."""

    traced: Any = None
    lowered: Any = None
    compiled: Any = None
    seconds: dict[str, float] = field(default_factory=dict)  # "trace", "lower", "compile" (those that ran)
    stdout: str = ""  # what the function printed while it was traced
    failed_stage: str = ""  # "lower" or "compile" when that stage raised (the later ones did not run)
    error: Exception | None = None
    compile_trace: Any = None  # the profiler's events of the compile (``profile_compile=True``)


def time_stages(jitted: Any, args: tuple, kwargs: dict, profile_compile: bool = False) -> TimedStages:
    """Time ``jitted.trace(*args, **kwargs)``, ``.lower()`` and ``.compile()``, one after another.

    ``jitted`` is a ``jax.jit`` object (``jit_fresh`` gives one whose trace cannot be a cache hit).
    Stdout is captured while tracing (``TimedStages.stdout``). A tracing error propagates; a lower
    or compile error is returned in ``failed_stage`` / ``error`` with the stages before it kept.
    ``profile_compile`` runs the compile under ``jax.profiler`` (``collect.compile_passes``) and keeps
    its events in ``compile_trace``; the compile's seconds exclude starting and stopping the profiler.
    """
    ts = TimedStages()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        t0 = time.perf_counter()
        try:
            ts.traced = jitted.trace(*args, **kwargs)
            ts.seconds["trace"] = time.perf_counter() - t0
        finally:
            ts.stdout = buf.getvalue()
    stage = "lower"
    try:
        t0 = time.perf_counter()
        ts.lowered = ts.traced.lower()
        ts.seconds["lower"] = time.perf_counter() - t0
        stage = "compile"

        def compile_timed() -> Any:
            t0 = time.perf_counter()
            out = ts.lowered.compile()
            ts.seconds["compile"] = time.perf_counter() - t0
            return out

        if profile_compile:
            from .compile_passes import profile_compile as profiled

            ts.compiled, ts.compile_trace = profiled(compile_timed, _module_name(ts.lowered))
        else:
            ts.compiled = compile_timed()
    except Exception as e:  # noqa: BLE001 - the caller decides: record it or raise it
        ts.failed_stage, ts.error = stage, e
    return ts


def _module_name(lowered: Any) -> str:
    """The lowered module's name (``jit_f``): XLA appends it to pipeline names."""
    try:
        return str(lowered.compiler_ir().operation.attributes["sym_name"]).strip('"')
    except Exception:  # noqa: BLE001 - cosmetic: names then keep their "(jit_f)" suffix
        return ""


def cost_dict(compiled: Any) -> dict[str, float]:
    """``compiled.cost_analysis()`` (or a ``Lowered``'s) as a flat dict of the totals (flops, bytes accessed, ...)."""
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):  # older JAX returned one dict per device
        cost = cost[0] if cost else {}
    out: dict[str, float] = {}
    for key, value in (cost or {}).items():
        # Per-operand entries look like 'bytes accessed0{}'; keep the totals only.
        if "{" in key or not isinstance(value, (int, float)):
            continue
        out[key] = float(value)
    return out


def memory_dict(compiled: Any) -> dict[str, int]:
    """``compiled.memory_analysis()`` as ``{field: bytes}`` (fields ending in ``_in_bytes``)."""
    mem = compiled.memory_analysis()
    if mem is None:
        return {}
    out = {}
    for name in dir(mem):
        if name.endswith("_in_bytes") and not name.startswith("_"):
            value = getattr(mem, name)
            if isinstance(value, int):
                out[name[: -len("_in_bytes")]] = value
    return out


def collect_stages(fn: Callable[..., Any], args: tuple, kwargs: dict, *,
                   static_argnames: tuple[str, ...] = (), static_argnums: tuple[int, ...] = (),
                   run: bool = True, budget_s: float = 0.3, profile_compile: bool = False,
                   jit_options: dict[str, Any] | None = None) -> Stages:
    """Trace, lower, compile and run ``fn(*args, **kwargs)`` under jit, timing each stage.

    ``profile_compile`` records the compile's profiler events in ``Stages.compile_trace``;
    ``jit_options`` are more ``jax.jit`` keywords (``in_shardings``, ``out_shardings``).

    Tracing errors propagate (the caller explains them). A later stage that fails is
    recorded in ``Stages.errors`` and the stages after it are skipped. JAX's persistent
    compilation cache is off throughout, so the compile time is a real compile, not a disk read.
    """
    with persistent_cache_disabled():
        return _collect_stages(fn, args, kwargs, static_argnames, static_argnums, run, budget_s, profile_compile,
                               jit_options)


def _collect_stages(fn: Callable[..., Any], args: tuple, kwargs: dict, static_argnames: tuple[str, ...],
                    static_argnums: tuple[int, ...], run: bool, budget_s: float, profile_compile: bool,
                    jit_options: dict[str, Any] | None = None) -> Stages:
    st = Stages()
    stage("tracing, lowering and compiling")
    ts = time_stages(jit_fresh(fn, static_argnames, static_argnums, jit_options), args, kwargs, profile_compile)
    st.traced, st.lowered, st.compiled, st.trace_stdout = ts.traced, ts.lowered, ts.compiled, ts.stdout
    st.compile_trace = ts.compile_trace
    st.timings = {stage: Timing.single(seconds) for stage, seconds in ts.seconds.items()}
    st.closed_jaxpr = st.traced.jaxpr
    st.jaxpr_text = str(st.closed_jaxpr)
    if ts.failed_stage == "lower":
        st.errors["lower"] = error_line(ts.error)
        return st
    try:
        st.stablehlo_text = st.lowered.as_text()
        st.hlo_before_text = st.lowered.as_text(dialect="hlo")
    except Exception as e:  # noqa: BLE001 - report and stop, the trace is still useful
        st.errors["lower"] = error_line(e)
        return st
    try:
        st.lowered_cost = cost_dict(st.lowered)
    except Exception:  # noqa: BLE001 - optional: the pessimisation check then relies on the HLO alone
        st.lowered_cost = {}
    if ts.failed_stage == "compile":
        st.errors["compile"] = error_line(ts.error)
        return st
    try:
        st.hlo_after_text = st.compiled.as_text() or ""
        st.cost = cost_dict(st.compiled)
        st.memory = memory_dict(st.compiled)
    except Exception as e:  # noqa: BLE001
        st.errors["compile"] = error_line(e)
        return st
    if not run:
        return st
    dyn_args, dyn_kwargs = dynamic_call_args(args, kwargs, static_argnames, static_argnums)
    stage(f"timing the compiled run (up to {budget_s:g} s)")
    try:
        seconds, st.output = time_once(lambda: st.compiled(*dyn_args, **dyn_kwargs))
        st.timings["first_run"] = Timing.single(seconds)
        st.timings["steady_run"] = measure(lambda: st.compiled(*dyn_args, **dyn_kwargs), budget_s=budget_s,
                                           min_samples=3, max_samples=100, warmup=0)
    except KeyboardInterrupt:
        st.errors["run"] = "interrupted"  # keep the trace, lowering and compile; the caller decides
    except Exception as e:  # noqa: BLE001
        st.errors["run"] = error_line(e)
    return st


def dynamic_call_args(args: tuple, kwargs: dict, static_argnames: tuple[str, ...],
                      static_argnums: tuple[int, ...]) -> tuple[tuple, dict]:
    """The arguments a ``Compiled`` takes: the call's arguments minus the static ones."""
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    return dyn_args, dyn_kwargs


class EagerBudgetExceeded(Exception):
    """The eager run passed its time budget; raised from a compile listener, between two op compiles."""

    def __init__(self, seconds: float, compiles: int) -> None:
        super().__init__(f"eager run stopped after {seconds:.1f} s ({compiles:,} op compiles so far)")
        self.seconds, self.compiles = seconds, compiles


def run_eager(fn: Callable[..., Any], args: tuple, kwargs: dict,
              budget_s: float | None = None) -> tuple[Any, float]:
    """Run ``fn`` op by op (no jit), blocked; return (output, seconds).

    With ``budget_s``, the run stops at the first op compile that ends past the budget (raising
    ``EagerBudgetExceeded``): an eager run is slow because each distinct op compiles on its own, so
    the compiles are where it spends its time and where it can stop cleanly.
    """
    import jax
    import jax.numpy as jnp
    from jax import monitoring

    from .._jaxcompat import COMPILE_EVENT, unregister_listener

    # Python scalars become weakly typed arrays under jit; do the same here so that eager and
    # jit compute in the same dtype (a float64 Python result is not a numerics difference).
    args, kwargs = jax.tree_util.tree_map(
        lambda v: jnp.asarray(v) if isinstance(v, (int, float, complex)) and not isinstance(v, bool) else v,
        (args, kwargs))
    buf = io.StringIO()
    stage("running eagerly, op by op, to compare numerics")
    t0 = time.perf_counter()
    compiles = [0]

    def deadline(event: str, seconds: float, **kw: Any) -> None:
        if event == COMPILE_EVENT:
            compiles[0] += 1
            if budget_s is not None and time.perf_counter() - t0 > budget_s:
                raise EagerBudgetExceeded(time.perf_counter() - t0, compiles[0])

    watch = budget_s is not None and hasattr(monitoring, "register_event_duration_secs_listener")
    if watch:
        monitoring.register_event_duration_secs_listener(deadline)
    try:
        with contextlib.redirect_stdout(buf), jax.disable_jit():
            t0 = time.perf_counter()
            out = block(fn(*args, **kwargs))
            return out, time.perf_counter() - t0
    finally:
        if watch:
            unregister_listener("duration", deadline)
