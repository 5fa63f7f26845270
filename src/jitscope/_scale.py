"""``jitscope.scale``: how trace / compile / run time and jaxpr size grow with problem size.

For a factory ``make(n) -> (fn, args)`` (or ``(fn, args, kwargs)``), every size gets a cold
trace, lower and compile (a fresh function object each repeat, so no cache is hit), a
steady-state run, the jaxpr size and the bloat detector's largest run. Growth exponents come
from ``analyze.scaling.fit_growth``; findings name superlinear compile growth and the bloat
that causes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._progress import stage
from .errors import UsageError, renamed_keywords
from .model import Environment, Finding, Fix, Timing
from .results.scale import ScalePoint, ScaleResult

#: ``compile-growth`` is reported from this compile exponent, when the fit explains at least
#: ``COMPILE_GROWTH_MIN_R2`` of the variance (noise around a flat line has a low r2), and only from
#: three or more measured sizes.
COMPILE_GROWTH_MIN = 0.3
COMPILE_GROWTH_MIN_R2 = 0.6


def _unpack(made: Any, n: int, name: str) -> tuple[Callable[..., Any], tuple, dict]:
    if isinstance(made, tuple) and len(made) in (2, 3) and callable(made[0]):
        fn, args = made[0], made[1]
        kwargs = made[2] if len(made) == 3 else {}
        if not isinstance(args, (tuple, list)):
            args = (args,)
        if not isinstance(kwargs, dict):
            raise UsageError(f"{name}({n}) returned kwargs of type {type(kwargs).__name__}, expected a dict")
        return fn, tuple(args), dict(kwargs)
    raise UsageError(f"{name}({n}) must return (fn, args) or (fn, args, kwargs), got {type(made).__name__}")


def _measure_size(make: Callable[[int], Any], n: int, name: str, repeats: int, run: bool,
                  budget_s: float) -> tuple[ScalePoint, Any, Any, Callable[[], None] | None, tuple]:
    """One size: returns the point, the last ClosedJaxpr, the user's function (for bloat), a callable
    that adds one more cold trace/lower/compile to the point's timings (None if it failed) and the call
    ``(fn, args, kwargs, static_argnums, static_argnames)`` (for the inspect command)."""
    from .analyze.hlo import hlo_stats
    from .analyze.jaxpr_stats import jaxpr_stats
    from .collect._errors import error_line
    from .collect.clock import block, measure, persistent_cache_disabled
    from .collect.jit_equivalent import jit_equivalent
    from .collect.lowering import dynamic_call_args, jit_fresh, time_stages

    point = ScalePoint(n)
    stage(f"n={n}: {repeats} cold compile{'s' if repeats > 1 else ''}")
    try:
        made = make(n)
    except Exception as e:  # noqa: BLE001 - the user's factory failed: a usage problem, one line
        raise UsageError(f"{name}({n}) raised {type(e).__name__}: {e}") from None
    fn, args, kwargs = _unpack(made, n, name)
    # The wrapper's static rules (jax.jit's static arguments, filter_jit's non-array leaves, nnx.jit's
    # static arguments): the programs measured are the ones the user's wrapper compiles.
    eq = jit_equivalent(fn, args, kwargs)
    # The inspect command names what the user passed (inspect applies the same rules); bloat reads the
    # user's own function.
    source = eq.user_function or fn
    call = (fn, args, kwargs, (), ()) if eq.wrapper == "equinox.filter_jit" else None
    fn, args, kwargs, nums, names = eq.fun, eq.args, eq.kwargs, eq.static_argnums, eq.static_argnames
    call = call or (fn, args, kwargs, nums, names)
    samples: dict[str, list[float]] = {"trace": [], "lower": [], "compile": []}
    closed = compiled = None

    def cold() -> Any:
        ts = time_stages(jit_fresh(fn, names, nums), args, kwargs)
        for phase, seconds in ts.seconds.items():
            samples[phase].append(seconds)
        if ts.error is not None:
            raise ts.error
        return ts

    def one_more() -> None:
        with persistent_cache_disabled():
            cold()
        point.timings.update({k: Timing(v) for k, v in samples.items()})

    # The persistent (on-disk) compilation cache off: a repeat must not load the previous one's.
    with persistent_cache_disabled():
        try:
            for _ in range(repeats):
                ts = cold()
                closed, compiled = ts.traced.jaxpr, ts.compiled
            point.timings = {k: Timing(v) for k, v in samples.items()}
            stats = jaxpr_stats(closed)
            point.equations, point.top_level_equations = stats.equations, stats.top_level_equations
            point.hlo_ops = hlo_stats(hlo_after_text=compiled.as_text() or "").hlo_after_ops
            if run:
                dyn_args, dyn_kwargs = dynamic_call_args(args, kwargs, names, nums)
                block(compiled(*dyn_args, **dyn_kwargs))
                point.timings["run"] = measure(lambda: compiled(*dyn_args, **dyn_kwargs), budget_s=budget_s,
                                               min_samples=3, max_samples=50, warmup=0)
        except Exception as e:  # noqa: BLE001 - record the failure for this size and keep going
            point.error = error_line(e)
            point.timings = {k: Timing(v) for k, v in samples.items() if v}
            return point, closed, source, None, call
    return point, closed, source, one_more, call


# With ``repeats`` left to the run: two cold compiles per size, then one more per size while the
# compile-time growth class is not settled (its 95% interval spans two bands), up to five.
AUTO_REPEATS_FIRST, AUTO_REPEATS_MAX = 2, 5


@renamed_keywords(budget_s="sample_seconds")
def scale(make: Callable[[int], Any], sizes: Sequence[int] = (100, 200, 400, 800, 1600), *,
          repeats: int | None = None,
          run: bool = True, sample_seconds: float = 0.1, target: str | None = None,
          keep_partial_on_interrupt: bool = False) -> ScaleResult:
    """Measure trace / lower / compile / run time and jaxpr size of ``make(n)`` for each size.

    Example:
        >>> import jax.numpy as jnp, jitscope
        >>> def make(n):
        ...     return (lambda x: sum(x)), (jnp.ones(n),)   # builtin sum: unrolls n times
        >>> res = jitscope.scale(make, [50, 100, 200])
        >>> res.fit("equations").growth
        'linear'

    Args:
        make: a factory ``make(n)`` returning ``(fn, args)`` or ``(fn, args, kwargs)``; ``fn``
            may be a ``jax.jit`` object (its static arguments are used).
        sizes: at least two distinct positive sizes.
        repeats: cold trace/lower/compile repeats per size; the minimum is used for the fit. None
            (the default): 2, then one more per size while the compile-time growth class is not
            settled (its 95% interval spans two bands), up to 5; ``result.repeats`` says how many.
        run: also time the steady-state run of the compiled function (``sample_seconds`` each; old
            keyword ``budget_s``, deprecated).
        keep_partial_on_interrupt: on Ctrl-C, stop and return the sizes measured so far
            (``result.interrupted``) instead of raising ``KeyboardInterrupt``.
        target: the name shown in reports.

    Returns:
        A ``ScaleResult``; a size that fails to trace or compile is recorded in its point
        (``error``) and a ``size-failed`` finding, and the other sizes still run.

    Raises:
        UsageError: bad sizes, or ``make`` fails or returns the wrong shape.
    """
    from ._pycode import entry_code
    from .analyze.bloat import detect_bloat
    from .analyze.scaling import fit_growth

    sizes = [int(s) for s in sizes]
    if any(s <= 0 for s in sizes) or len(set(sizes)) < 2:
        raise UsageError(f"sizes {sizes}: need at least two distinct positive sizes")
    auto = repeats is None
    if repeats is None:
        repeats = AUTO_REPEATS_FIRST
    if repeats < 1:
        raise UsageError(f"repeats {repeats}: must be at least 1")
    name = target or f"{getattr(make, '__module__', '')}:{getattr(make, '__qualname__', repr(make))}"
    result = ScaleResult(target=name, sizes=sorted(set(sizes)), repeats=repeats, repeats_auto=auto,
                         env=Environment.capture())
    largest = None
    more: list[Callable[[], None]] = []
    largest_call = None
    for n in result.sizes:
        try:
            point, closed, fn, one_more, call = _measure_size(make, n, name, repeats, run, sample_seconds)
        except KeyboardInterrupt:
            if not keep_partial_on_interrupt:
                raise
            result.interrupted = True  # fit what was measured; the sizes after this one are not
            result.findings.append(Finding("interrupted", f"interrupted at n={n}; larger sizes not measured",
                                           "info", name=str(n)))
            break
        result.points.append(point)
        if point.error:
            result.findings.append(Finding("size-failed", f"n={n}: {point.error}", "error", name=str(n)))
            continue
        runs = detect_bloat(closed, entry_code(fn))
        point.bloat_repeats = runs[0].repeats if runs else 0
        largest, largest_call = runs, (point, *call)
        if one_more is not None:
            more.append(one_more)
    ok = [p for p in result.points if not p.error]
    ns = [p.n for p in ok]
    if auto and not result.interrupted:
        try:
            while result.repeats < AUTO_REPEATS_MAX and fit_growth(
                    "compile", ns, [p.seconds("compile") for p in ok]).settled is False:
                stage(f"compile growth unsettled: repeat {result.repeats + 1} of at most {AUTO_REPEATS_MAX}")
                for add in more:
                    add()
                result.repeats += 1
        except KeyboardInterrupt:
            if not keep_partial_on_interrupt:
                raise
            result.interrupted = True  # fit the repeats completed so far
        except Exception:  # noqa: BLE001 - a size that compiled before and fails now: keep what was measured
            pass
    for metric in ("trace", "lower", "compile", "run"):
        result.fits[metric] = fit_growth(metric, ns, [p.seconds(metric) for p in ok])
    result.fits["equations"] = fit_growth("equations", ns, [p.equations for p in ok])
    result.fits["bloat_repeats"] = fit_growth("bloat_repeats", ns, [p.bloat_repeats for p in ok])
    result.bloat = largest or []
    result.findings += _findings(result)
    if largest_call is not None:
        result.inspect_command = _largest_size_command(*largest_call)
    return result


def _largest_size_command(point: ScalePoint, fn: Any, args: tuple, kwargs: dict, nums: tuple,
                          names: tuple) -> Any:
    """The ``jitscope inspect`` call for the largest size measured (None when it cannot be written exactly:
    the factory returned a lambda or a nested function, or arguments ``--arg`` cannot express)."""
    import os

    from .analyze.inspect_command import command_for
    from .collect.call_signature import call_signature_of
    from .collect.watch_signature import definition_site, function_name

    try:
        where = definition_site(fn)
        signature = call_signature_of(fn, nums, names, args, kwargs)
        seconds = sum(point.seconds(stage) or 0.0 for stage in ("trace", "lower", "compile"))
        return command_for(where.file if where else None, function_name(fn), signature, os.getcwd(),
                           explains="largest_size", detail=f"n={point.n}", seconds=seconds)
    except Exception:  # noqa: BLE001 - a hint must never cost the user their measurements
        return None


def _findings(result: ScaleResult) -> list[Finding]:
    out: list[Finding] = []
    comp, eqns = result.fits.get("compile"), result.fits.get("equations")
    top = result.bloat[0] if result.bloat else None
    # Two points always fit with r2 = 1: growth needs a third point to be told apart from noise.
    if comp and comp.exponent is not None and comp.points >= 3 and (comp.growth == "superlinear" or (
            comp.exponent >= COMPILE_GROWTH_MIN and (comp.r2 or 0) >= COMPILE_GROWTH_MIN_R2)):
        n_max = max(p.n for p in result.points if not p.error)
        at10 = comp.predict(10 * n_max)
        cause = ""
        if eqns and eqns.exponent is not None and eqns.exponent >= COMPILE_GROWTH_MIN:
            cause = f"; the jaxpr grows as n^{eqns.exponent:.2f}"
            if top is not None and top.location is not None:
                cause += (f": {top.construct} at {top.location.file}:{top.location.line} unrolls into "
                          f"{top.repeats} repeats at n={n_max}")
        interval = (f", 95% interval {comp.exponent_low:.2f}-{comp.exponent_high:.2f}"
                    if comp.exponent_low is not None and comp.exponent_high is not None else "")
        message = (f"compile time grows as n^{comp.exponent:.2f} ({comp.growth_range}{interval}, "
                   f"r2={comp.r2:.2f}){cause}; "
                   f"fitted compile time at n={10 * n_max}: {at10:.3g} s")
        fix = top.fix if top is not None else Fix(
            "keep the traced program size independent of n",
            "use lax.scan / lax.fori_loop / vmap instead of Python loops over the problem size.")
        out.append(Finding("compile-growth", message, "error" if comp.growth == "superlinear" and comp.settled is not False else "warning",
                           top.location if top else None, name=comp.growth, fix=fix,
                           details={"exponent": comp.exponent, "superlinear": comp.growth == "superlinear",
                                    "equations_exponent": eqns.exponent if eqns else None}))
    if top is not None:
        reps = result.fits.get("bloat_repeats")
        grows = f", repeats grow as n^{reps.exponent:.2f}" if reps and reps.exponent is not None else ""
        where = f" at {top.location.file}:{top.location.line}" if top.location else ""
        out.append(Finding("bloat", f"{top.construct}{where}: {top.repeats} repeats of a {top.pattern_size}-equation "
                           f"pattern at the largest size{grows}", "warning", top.location, name=top.kind, fix=top.fix))
    return out
