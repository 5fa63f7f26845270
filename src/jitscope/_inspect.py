"""``jitscope.inspect``: the anatomy of one jitted function, traced to the user's source lines.

Pipeline: collect (``collect.lowering`` stages and timings, ``collect.trace_effects`` side
effects, an eager run) -> analyze (``jaxpr_stats``, ``bloat``, ``hlo``, ``line_cost``, ``tracer_errors``,
``side_effects``, ``numerics``) -> an ``InspectResult`` (plain data, rendered later).
"""

from __future__ import annotations

import inspect as _pyinspect
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._pycode import entry_code
from .collect.call_signature import call_signature_of
from .errors import UsageError, renamed_keywords
from .model import Environment, Finding, Fix, Timing
from .results.inspect import InspectResult


def _name_of(fn: Any) -> str:
    mod = getattr(fn, "__module__", None) or ""
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"{mod}:{qual}" if mod else qual


def _check_call(fn: Callable[..., Any], args: tuple, kwargs: dict, name: str) -> None:
    """Wrong argument count or names is a usage error, not a tracing error."""
    try:
        sig = _pyinspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        params = ", ".join(sig.parameters)
        raise UsageError(f"wrong arguments for {name}({params}): {e}") from None


def _dynamic_params(fn: Any, static_argnames: tuple[str, ...], static_argnums: tuple[int, ...] = ()) -> list[str]:
    """Names of ``fn``'s parameters that jit traces (not in static_argnames / static_argnums)."""
    try:
        params = list(_pyinspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []
    return [p.name for i, p in enumerate(params)
            if p.name not in static_argnames and i not in static_argnums
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _array_params(fn: Any, args: tuple, kwargs: dict) -> set[str] | None:
    """Names of ``fn``'s parameters this call passes an array (a pytree holding one counts); None if unknown."""
    try:
        bound = _pyinspect.signature(fn).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    import jax

    def holds_array(value: Any) -> bool:
        return any(hasattr(leaf, "shape") and hasattr(leaf, "dtype") for leaf in jax.tree_util.tree_leaves(value))

    return {name for name, value in bound.arguments.items() if holds_array(value)}


def _bloat_findings(runs: list, total: int) -> list[Finding]:
    out = []
    for r in runs:
        where = f" at {r.location.file}:{r.location.line}" if r.location else ""
        pattern = ", ".join(r.pattern[:6]) + (", ..." if len(r.pattern) > 6 else "")
        message = (f"{r.construct}{where} unrolls into {r.repeats} repeats of a {r.pattern_size}-equation "
                   f"pattern ({pattern}): {r.equations} of {total} equations ({r.share:.0%})")
        out.append(Finding("bloat", message, "warning", r.location, name=r.kind, fix=r.fix,
                           details={"repeats": r.repeats, "pattern_size": r.pattern_size,
                                    "equations": r.equations, "source": r.source}))
    return out


@renamed_keywords(budget_s="sample_seconds", eager_budget_s="eager_timeout")
def inspect(fn: Callable[..., Any], *args: Any, static_argnames: tuple[str, ...] | list[str] = (),
            static_argnums: tuple[int, ...] | list[int] = (), run: bool = True, numerics: bool = True,
            side_effects: bool = True, dump: str | Path | None = None, sample_seconds: float = 0.3,
            target: str | None = None, keep_partial_on_interrupt: bool = False, measure_fixes: bool = True,
            eager_timeout: float | None = 3.0, passes: bool = False,
            **kwargs: Any) -> InspectResult:
    """Trace, lower, compile and run ``fn(*args, **kwargs)`` under jit and explain what happened.

    Static arguments are declared like ``jax.jit`` does: ``static_argnames=("n",)`` /
    ``static_argnums=(1,)``. If ``fn`` is already a ``jax.jit`` object, its wrapped function
    and its static arguments are used. The keyword names of this function's options
    (``static_argnames``, ``static_argnums``, ``run``, ``numerics``, ``side_effects``,
    ``dump``, ``sample_seconds``, ``target``, ``measure_fixes``, ``eager_timeout``, ``passes``, and the
    deprecated ``budget_s``, ``eager_budget_s``) cannot be passed through to ``fn``.

    Example:
        >>> import jax.numpy as jnp, jitscope
        >>> def f(x):
        ...     return sum(x * 2)          # builtin sum: one slice/squeeze/add per element
        >>> res = jitscope.inspect(f, jnp.ones(64))
        >>> res.bloat[0].repeats, res.bloat[0].fix.title
        (64, 'use jnp.sum')

    Args:
        fn: the function (or ``jax.jit`` object) to inspect.
        *args, **kwargs: the call's arguments (arrays, scalars, pytrees).
        static_argnames, static_argnums: which arguments are static, as for ``jax.jit``.
        run: run the compiled function (first and steady-state timings). ``numerics`` also
            runs it eagerly and compares outputs. ``side_effects`` traces once more with
            watchers for print / logging / global mutation.
        eager_timeout: seconds; stop the eager run once it has taken this long (at its next op compile,
            where an eager run spends its time) and report a ``numerics-skipped`` finding instead of
            the comparison. None: no limit. (Old keyword ``eager_budget_s``, deprecated.)
        dump: a directory for the stage files (``01_jaxpr.txt`` ... ``05_fusions.dot``).
        sample_seconds: seconds to spend sampling the steady-state run time (old keyword ``budget_s``,
            deprecated).
        target: the name shown in reports (default ``module:qualname``).
        keep_partial_on_interrupt: on Ctrl-C, stop and return what was measured so far
            (``status="interrupted"``) instead of raising ``KeyboardInterrupt`` (the CLI uses this).
        measure_fixes: when the compiled program is pessimised (``result.pessimisation.fires``)
            and the duplicated lines are in a module-level function the target calls, build and
            time the automatic fixes (that function jitted on its own and called from Python;
            its results behind ``lax.optimization_barrier``). Needs ``run``.
        passes: compile under ``jax.profiler`` and break the backend compile time down by XLA
            pass and pipeline (``result.passes``, a ``CompilePasses``; docs/inspect.md).

    Returns:
        An ``InspectResult``. A tracing failure is reported in it (``status="trace_error"``,
        a ``tracer-error`` or ``trace-failed`` finding), not raised.

    Raises:
        UsageError: ``fn`` is not callable, or the arguments do not fit its signature.
    """
    from ._jaxcompat import jit_shardings
    from .collect.jit_equivalent import jit_equivalent

    static_argnames, static_argnums = tuple(static_argnames), tuple(static_argnums)
    if not callable(fn):
        raise UsageError(f"{target or repr(fn)} is a {type(fn).__name__}, not a function")
    jit_options = jit_shardings(fn)  # a jit with in_shardings/out_shardings is inspected with them
    # The user's wrapper's static rules (jax.jit's static arguments, filter_jit's non-array leaves,
    # nnx.jit's static arguments): the program analysed is the one the wrapper compiles.
    eq = jit_equivalent(fn, args, kwargs)
    static_argnums = tuple(sorted(set(static_argnums) | set(eq.static_argnums)))
    static_argnames = tuple(dict.fromkeys(static_argnames + eq.static_argnames))
    user_fn = eq.user_function or fn
    name = target or _name_of(user_fn)
    _check_call(user_fn, args, kwargs, name)
    try:
        signature = call_signature_of(eq.fun, static_argnums, static_argnames, eq.args, eq.kwargs)
        if eq.static_by_type or eq.wrapper == "equinox.filter_jit":
            signature.static.update(call_signature_of(user_fn, (), (), args, kwargs, arrays_only=True).static)
    except Exception:  # noqa: BLE001 - a description must never stop an inspection
        signature = None
    fn, args, kwargs = eq.fun, eq.args, eq.kwargs
    static_for_errors = static_argnames + tuple(eq.static_by_type)

    from .collect.lowering import collect_stages

    result = InspectResult(target=name, signature=signature,
                           env=Environment.capture())
    try:
        st = collect_stages(fn, args, kwargs, static_argnames=static_argnames, static_argnums=static_argnums,
                            run=run, budget_s=sample_seconds, profile_compile=passes, jit_options=jit_options)
    except KeyboardInterrupt:
        if not keep_partial_on_interrupt:
            raise
        return _interrupted(result, "while tracing, lowering or compiling")
    except Exception as e:  # noqa: BLE001 - any exception while tracing is the user's, explain it
        from .analyze.tracer_errors import explain

        result.status = "trace_error"
        result.findings.append(explain(e, _dynamic_params(user_fn, static_for_errors, static_argnums),
                                       _array_params(fn, args, kwargs)))
        return result
    try:
        _analyze(result, fn, st, args, kwargs, static_argnames, static_argnums, numerics and run, side_effects,
                 eager_timeout, source_fn=user_fn)
        if result.pessimisation is not None and result.pessimisation.fires and measure_fixes and run:
            result.pessimisation.measured = _measure_fixes(fn, result, args, kwargs, static_argnames, static_argnums,
                                                           sample_seconds)
    except KeyboardInterrupt:
        if not keep_partial_on_interrupt:
            raise
        return _interrupted(result, "while analysing (the stages measured so far are kept)")
    if "in_shardings" in jit_options and "does not match the sharding" in st.errors.get("lower", ""):
        _name_sharding_mismatch(result, jit_options["in_shardings"])
    if "run" in st.errors and st.errors["run"] == "interrupted":
        if not keep_partial_on_interrupt:
            raise KeyboardInterrupt
        return _interrupted(result, "while timing the compiled run")
    if dump is not None:
        from .analyze.hlo import fusion_dot, parse_hlo
        from .collect.dump import write_dump

        try:
            graph = (fusion_dot(parse_hlo(st.hlo_after_text), f"{name} optimised HLO".strip())
                     if st.hlo_after_text else None)
            result.dump_files = write_dump(st, dump, graph)
        except (UsageError, OSError) as e:  # keep everything measured; say what was not written
            result.stage_errors["dump"] = str(e)
            result.findings.append(Finding("stage-failed", f"dump failed: {e}", "error", name="dump"))
    return result


def _name_sharding_mismatch(result: InspectResult, in_shardings: Any) -> None:
    """JAX refuses a committed argument whose sharding differs from ``in_shardings`` (it does not
    reshard it): replace the generic ``stage-failed`` finding with one naming the argument(s)."""
    import jax

    from .analyze.collectives import sharding_mismatch
    from .model import sharding_text

    leaves = list(result.signature.leaves) if result.signature else []
    wanted = [sharding_text(w) for w in jax.tree_util.tree_leaves(in_shardings)]
    finding = sharding_mismatch([(leaf.path, leaf.sharding) for leaf in leaves], wanted)
    if finding is not None:  # else the leaves do not line up with in_shardings: keep JAX's own message
        result.findings = [f for f in result.findings if not (f.code == "stage-failed" and f.name == "lower")]
        result.findings.append(finding)


def _pessimisation_finding(p: Any) -> Finding:
    top = p.lines[0] if p.lines else None
    where = (f"; most duplicated: line {top.location.line} ({top.location.function}), {top.ops} instructions "
             f"for {top.distinct} values ({top.factor:.1f}x)" if top and top.location else "")
    consumers = Counter(f.location.line for f in p.fusions if f.location)
    if where and consumers:
        where += f", recomputed inside the fusions for line {consumers.most_common(1)[0][0]}"
    bytes_part = f", {p.bytes_factor:.1f}x the bytes" if p.bytes_factor is not None else ""
    message = (f"the compiled program does {p.flops_factor:.1f}x the flops the program describes{bytes_part}: "
               f"XLA duplicated work into {p.duplicating_fusions} of {p.fusion_count} fusions ({p.ops} instructions compute {p.distinct} "
               f"distinct values, {p.ops_factor:.1f}x){where}" if p.flops_factor is not None else
               f"the compiled program computes its values {p.ops_factor:.1f}x over ({p.ops} instructions, "
               f"{p.distinct} distinct values){where}")
    return Finding("pessimised-fusion", message, "warning", top.location if top else None,
                   name="duplicated-fusion", fix=p.fixes[0] if p.fixes else None,
                   details={"flops_factor": p.flops_factor, "bytes_factor": p.bytes_factor,
                            "ops_factor": p.ops_factor, "confidence": p.confidence})


def _measure_fixes(fn: Any, result: InspectResult, args: tuple, kwargs: dict, static_argnames: tuple,
                   static_argnums: tuple, budget_s: float) -> list[Any]:
    """Build the automatic fixes (a smaller jit scope, a barrier) around the most duplicated function, time them."""
    from .collect.variants import barrier_variant, scope_variants

    p = result.pessimisation
    inner = next((d.location.function for d in p.lines if d.location and d.location.function), None)
    namespace = getattr(fn, "__globals__", None)
    if not inner or namespace is None or not callable(namespace.get(inner)) or namespace.get(inner) is fn:
        return []  # the duplicated lines are in the target itself or a local function: no variant to build
    try:
        candidates = [scope_variants(fn, namespace, inner, static_argnames)[1],
                      barrier_variant(fn, namespace, inner, static_argnames)]
    except Exception:  # noqa: BLE001 - an unusual namespace: suggest the fixes in words only
        return []
    return [_measure_fix(v, result, args, kwargs, static_argnames, static_argnums, budget_s) for v in candidates]


def _measure_fix(v: Any, result: InspectResult, args: tuple, kwargs: dict, static_argnames: tuple,
                 static_argnums: tuple, budget_s: float) -> Any:
    """One fix's steady and compile time; a jitted fix is compiled once, as the target was, and its
    program's own flops factor says whether it changed what XLA built."""
    from .analyze.pessimisation import FixGain, detect_pessimisation
    from .collect.lowering import collect_stages
    from .collect.variants import measure_variant, plain_function, rebind

    steady, compile_s = result.timings.get("steady_run"), result.timings.get("compile")
    gain = FixGain(v.name, v.description, baseline_s=steady.median if steady else None,
                   baseline_compile_s=compile_s.median if compile_s else None)
    if v.is_jitted:
        with rebind(v.bindings):
            try:
                st = collect_stages(plain_function(v.fn), args, kwargs, static_argnames=static_argnames,
                                    static_argnums=static_argnums, budget_s=budget_s)
            except Exception as e:  # noqa: BLE001 - the target traced; a fix that does not is reported
                gain.error = f"{type(e).__name__}: {e}"
                return gain
        gain.error = "; ".join(f"{k}: {m}" for k, m in st.errors.items()) or None
        run, comp = st.timings.get("steady_run"), st.timings.get("compile")
        gain.steady_s, gain.compile_s = (run.median if run else None), (comp.median if comp else None)
        if st.hlo_after_text:
            gain.flops_factor = detect_pessimisation(st.hlo_after_text, st.lowered_cost, st.cost).flops_factor
    else:
        rec, _ = measure_variant(v, args, kwargs, budget_s=budget_s, min_samples=3, phases=False)
        gain.error = rec.error
        if rec.ok:
            gain.steady_s, gain.compile_s = rec.steady.median, rec.compile_seconds_first_call  # type: ignore[union-attr]
    if gain.baseline_s and gain.steady_s:
        gain.gain = gain.baseline_s / gain.steady_s
    return gain


def _interrupted(result: InspectResult, when: str) -> InspectResult:
    result.status = "interrupted"
    result.findings.append(Finding("interrupted", f"interrupted {when}", "info", name="interrupted"))
    return result


def _analyze(result: InspectResult, fn: Any, st: Any, args: tuple, kwargs: dict, static_argnames: tuple,
             static_argnums: tuple, numerics: bool, side_effects: bool, eager_budget_s: float | None,
             source_fn: Any = None) -> None:
    """Every analysis of the traced program; ``source_fn`` is the function the user wrote (its code and
    globals), when ``fn`` is an adapter around it (``collect.jit_equivalent``)."""
    from .analyze.bloat import detect_bloat
    from .analyze.hlo import hlo_stats
    from .analyze.jaxpr_stats import captured_values, jaxpr_stats
    from .analyze.pessimisation import detect_pessimisation
    from .analyze.side_effects import captured_findings, side_effect_findings

    result.timings = dict(st.timings)
    if st.compile_trace is not None:
        from .analyze.compile_passes import compile_passes

        result.passes = compile_passes(st.compile_trace)
    result.trace_output = st.trace_stdout[:10_000]  # keep the JSON small when a trace prints a lot
    result.stage_errors = dict(st.errors)
    paths = [leaf.path for leaf in result.signature.leaves] if result.signature else []
    stats = jaxpr_stats(st.closed_jaxpr, paths)
    source_fn = fn if source_fn is None else source_fn
    stats.captured = captured_values(source_fn, st.closed_jaxpr)
    result.jaxpr = stats
    entry = entry_code(source_fn)
    result.bloat = detect_bloat(st.closed_jaxpr, entry)
    result.hlo = hlo_stats(st.stablehlo_text, st.hlo_before_text, st.hlo_after_text, st.cost, st.memory)
    hlo_located = _line_costs(result, st, entry)
    findings_sharded = _sharding(result, st, paths, hlo_located) if st.hlo_after_text else []
    findings = _bloat_findings(result.bloat, stats.equations)
    if st.hlo_after_text:
        result.pessimisation = detect_pessimisation(st.hlo_after_text, st.lowered_cost, st.cost)
        if result.pessimisation.fires:
            if result.bloat and result.bloat[0].location is not None:  # the unrolled loop to turn into a fori_loop
                result.pessimisation.fixes[0].location = result.bloat[0].location
            findings.append(_pessimisation_finding(result.pessimisation))
    findings += captured_findings(stats.captured)
    findings += findings_sharded
    if side_effects:
        from ._progress import stage
        from .collect.trace_effects import trace_with_effects

        stage("tracing again to catch side effects")

        try:
            events = trace_with_effects(fn, args, kwargs, static_argnames=static_argnames,
                                           static_argnums=static_argnums)
            findings += side_effect_findings(events)
        except Exception as e:  # noqa: BLE001 - a function that traced once but not twice is itself news
            findings.append(Finding("trace-side-effect", f"a second trace raised {type(e).__name__}: {e}",
                                    "warning", name="retrace-failed"))
    for text in stats.weak_typed_inputs:
        findings.append(Finding(
            "weak-typed-input", f"input {text} is weakly typed (a Python scalar); calling later with a typed array "
            "of the same shape retraces and recompiles", "info", name=text.split(":")[0],
            fix=Fix("pass a typed array, e.g. jnp.float32(x)", "weak_type is part of jit's cache key.")))
    for stage, message in st.errors.items():
        findings.append(Finding("stage-failed", f"{stage} failed: {message}", "error", name=stage))
    if numerics and st.output is not None:
        findings += _numerics(result, fn, args, kwargs, st.output, eager_budget_s)
    result.findings = findings


def _line_costs(result: InspectResult, st: Any, entry: Any) -> str:
    """Fill the per-line compile cost; returns the pre-optimisation HLO with its source locations."""
    from .analyze.line_cost import line_costs
    from .collect.line_sources import hlo_with_locations

    seconds = {k: t.median for k, t in st.timings.items() if k in ("trace", "lower", "compile") and t.median}
    located = hlo_with_locations(st.lowered)
    result.line_costs, result.line_cost_totals = line_costs(
        st.closed_jaxpr, entry, hlo_before_text=located, hlo_after_text=st.hlo_after_text,
        seconds=seconds)
    return located


def _sharding(result: InspectResult, st: Any, paths: list[str], hlo_located: str) -> list[Finding]:
    """Per-device layout and collectives of a program over several devices; a finding per resharding."""
    from .analyze.collectives import collectives, resharding_findings
    from .collect.shardings import shard_layout

    coll = collectives(st.hlo_after_text, hlo_located)
    layout = shard_layout(st.compiled, st.traced, paths)
    if layout is None and coll.partitions * coll.replicas <= 1 and not coll.collectives:
        return []  # one device: nothing moves between devices
    result.shard_layout, result.collectives = layout, coll
    return resharding_findings(coll)


def _numerics(result: InspectResult, fn: Any, args: tuple, kwargs: dict, jit_out: Any,
              eager_budget_s: float | None) -> list[Finding]:
    from .analyze.numerics import compare_outputs
    from .collect.lowering import EagerBudgetExceeded, run_eager

    try:
        eager_out, seconds = run_eager(fn, args, kwargs, budget_s=eager_budget_s)
    except EagerBudgetExceeded as e:
        return [Finding(
            "numerics-skipped", f"{e}, over the {eager_budget_s:g} s budget: jit and eager outputs not compared "
            "(--eager-timeout SECONDS, eager_timeout=, raises it)", "info", name="over-budget",
            details={"seconds": e.seconds, "compiles": e.compiles, "budget_seconds": eager_budget_s})]
    except Exception as e:  # noqa: BLE001 - jit-only code (e.g. uses lax.cond with tracers) may not run eagerly
        return [Finding("numerics-differ", f"eager run raised {type(e).__name__}: {e}", "info", name="eager-failed")]
    result.timings["eager_run"] = Timing.single(seconds)
    diff = compare_outputs(eager_out, jit_out, "eager", "jit")
    result.numerics = diff
    if diff.ok:
        return []
    return [Finding("numerics-differ", f"jit and eager outputs differ: {diff.detail}", "warning", name=diff.status,
                    fix=_numerics_fix(diff, jit_out),
                    details={"max_abs_error": diff.max_abs_error, "max_rel_error": diff.max_rel_error})]


def _numerics_fix(diff: Any, out: Any) -> Fix:
    """Advice built from the measured difference: which leaf, dtype, by how much, likely causes."""
    import jax

    leaves = ", ".join(diff.leaves[:3]) + (", ..." if len(diff.leaves) > 3 else "") or "output"
    dtypes = {str(getattr(v, "dtype", type(v).__name__)) for p, v in jax.tree_util.tree_flatten_with_path(out)[0]
              if (jax.tree_util.keystr(p) or "output") in diff.leaves}
    if dtypes:
        leaves += f" ({', '.join(sorted(dtypes))})"
    if diff.status == "mismatch":
        return Fix("jit changes the output's structure, shape or dtype",
                   f"{diff.detail}. Check dtype promotion (weak types, x64) and shape logic that depends on "
                   "Python values.")
    text = (f"{leaves} differs beyond tolerance by {diff.max_abs_error:.3g} absolute, "
            f"{diff.max_rel_error:.3g} relative (rtol {diff.rtol:g}, atol {diff.atol:g}). Likely causes: fusion "
            "of transcendental functions, FMA contraction, reduction order, bf16 rounding points. Compare "
            "with a tolerance, or compute the reference in float64 to see which side is closer.")
    if "NaN or inf on one side only" in diff.detail:
        text = ("A non-finite value on one side only is not rounding: look for overflow, "
                "division by zero or log/sqrt of values near 0 that one side computes differently. ") + text
    return Fix(f"jit output differs from eager on {leaves}", text)
