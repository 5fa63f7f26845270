"""``jitscope.compare``: measure named variants of one computation and say which to use.

Collect (``collect/variants.py``: cold first call, AOT phases, steady state), analyze
(``analyze/compare.py``: break-even, recommendation; ``analyze/numerics.py``: outputs),
and return a ``CompareResult`` that any renderer can show.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .analyze.compare import Costs, apart, break_even_table, recommend, speedups
from .analyze.inspect_command import InspectCommand, losing_variant
from .analyze.numerics import compare_outputs
from .collect._errors import error_line
from .collect.call_signature import call_signature_of
from .collect.variants import (
    MAX_SAMPLES,
    cold_call,
    effort_variants,
    jit_like,
    measure_variant,
    plain_function,
    static_args_of,
    steady_round,
)
from .collect.variants import Variant as Variant
from .collect.variants import effort_flags_missing as effort_flags_missing
from .collect.variants import scope_variants as scope_variants
from .errors import UsageError, renamed_keywords
from .model import ArgSignature, Environment, Timing
from .render.text import recommendation_text
from .results.compare import CompareResult, VariantResult
from .targets import resolve_callable, resolve_target


def _as_variants(variants: Mapping[str, Any] | Sequence[Variant]) -> list[Variant]:
    if isinstance(variants, Mapping):
        out = []
        for name, fn in variants.items():
            if isinstance(fn, Variant):
                out.append(fn)
            else:
                out.append(Variant(str(name), fn))
        return out
    out = list(variants)
    for v in out:
        if not isinstance(v, Variant):
            raise TypeError(f"variants must be a mapping name -> callable or a list of Variant, got {type(v).__name__}")
    return out


def _pick_reference(result: CompareResult, variants: list[Variant], requested: str | None) -> str | None:
    names = [v.name for v in variants]
    if requested is not None and requested not in names:
        raise ValueError(f"reference '{requested}' is not one of the variants ({', '.join(names)})")
    ok = {v.name for v in result.variants if v.ok}
    candidates = [requested] if requested else []
    candidates += [v.name for v in variants if not v.is_jitted and v.check_output]
    candidates += [v.name for v in variants if v.check_output]
    for name in candidates:
        if name in ok:
            return name
    return None


# Steady samples are taken in this many rounds, every variant once per round, each round in a rotated
# order: a variant measured alone for its whole budget sees only that moment's machine state, and on a
# busy machine the steady medians of identical code measured one after the other differ by 2x. Ten
# rounds give a 98% interval for a paired difference that ignores the most extreme round on each side
# (``analyze.compare.paired_median_interval``). Each round takes at least one call.
ROUNDS = 10
# Cold first calls are repeated (in rotated order, from cleared caches) up to this many times while a
# variant's cold calls so far took under COLD_BUDGET_S (or 5x the steady budget): one cold call on a
# loaded machine can take three times as long as the next (``analyze.compare.apart`` asks for 5).
COLD_REPEATS = 5
COLD_BUDGET_S = 3.0


def _sample_interleaved(vs: list[Variant], measured: dict[str, VariantResult], args: tuple, kw: dict,
                        budget_s: float, min_samples: int) -> None:
    """Extra cold first calls, then rounds 2..ROUNDS of the steady state, all variants per round, each
    round in a rotated order (round 1 was each variant's own pass in ``measure_variant``)."""
    live = [v for v in vs if v.name in measured and measured[v.name].error is None
            and measured[v.name].first_call is not None]
    if not live:
        return
    n = len(live)
    for r in range(1, COLD_REPEATS):
        for k in range(n):
            v = live[(k + r) % n]
            rec = measured[v.name]
            if rec.error is not None or rec.first_call is None \
                    or sum(rec.first_call.samples) > max(COLD_BUDGET_S, 5 * budget_s):
                continue
            try:
                rec.first_call = Timing([*rec.first_call.samples, cold_call(v, args, kw)])
            except Exception:  # noqa: BLE001 - the first pass's cold call stands
                continue
    live = [v for v in live if measured[v.name].steady is not None and measured[v.name].steady.samples]
    samples = {v.name: list(measured[v.name].steady.samples) for v in live}  # type: ignore[union-attr]
    medians = {v.name: [statistics.median(samples[v.name])] for v in live}
    calls = {v.name: len(samples[v.name]) for v in live}
    compiles = {v.name: round((measured[v.name].compiles_per_call or 0) * calls[v.name]) for v in live}
    n = len(live)
    per_round = max(1, -(-min_samples // ROUNDS))  # at least one call per round, however slow
    for r in range(1, ROUNDS):
        for k in range(n):
            v = live[(k + r) % n]
            rec = measured[v.name]
            if rec.error is not None:
                continue
            try:
                got, c = steady_round(v, args, kw, budget_s=budget_s / ROUNDS, min_samples=per_round,
                                      max_samples=max(MAX_SAMPLES, min_samples) // ROUNDS + 1)
            except Exception as e:  # noqa: BLE001 - recorded as this variant's steady failure
                rec.error, rec.error_stage = error_line(e), "steady"
                continue
            samples[v.name] += got
            medians[v.name].append(statistics.median(got))
            calls[v.name] += len(got)
            compiles[v.name] += c
    for v in live:
        rec = measured[v.name]
        if rec.error is None and samples[v.name]:
            rec.steady = Timing(samples[v.name])
            rec.compiles_per_call = compiles[v.name] / calls[v.name]
            rec.steady_rounds = medians[v.name]


def _signature(variants: list[Variant], args: tuple, kwargs: dict, static: Sequence[str]) -> ArgSignature:
    """The call's signature with static values apart: ``static`` names plus the static arguments of
    jit-object variants (their ``static_argnums``/``static_argnames``, as inspect and scale read them).
    Leaves and static values are named by the first variant's parameters (``x``, ``n``), as in inspect
    and watch."""
    from .collect.jit_equivalent import wrapper_of

    names, nums = set(static), set()
    for v in variants:
        v_nums, v_names = static_args_of(v.fn)
        names.update(v_names)
        nums.update(v_nums)
    # under equinox.filter_jit every non-array leaf is static (docs/compare.md)
    arrays_only = any(wrapper_of(v.fn) == "equinox.filter_jit" for v in variants)
    return call_signature_of(plain_function(variants[0].fn), tuple(sorted(nums)), tuple(names), args, kwargs,
                             arrays_only=arrays_only)


@renamed_keywords(budget_s="sample_seconds")
def run_compare(
    variants: Mapping[str, Any] | Sequence[Variant],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    calls: int | None = None,
    sample_seconds: float = 0.5,
    min_samples: int = 5,
    reference: str | None = None,
    phases: bool = True,
    title: str = "",
    static: Sequence[str] = (),
    on_variant: Callable[[str], None] | None = None,
    keep_partial_on_interrupt: bool = False,
) -> tuple[CompareResult, dict[str, Any]]:
    """Like ``compare`` but also return each successful variant's first output (for callers that
    need the values, e.g. the demo's numerics case study). With ``keep_partial_on_interrupt``, Ctrl-C
    stops measuring and returns what was measured (``result.interrupted``) instead of raising."""
    vs = _as_variants(variants)
    if not vs:
        raise ValueError("compare needs at least one variant")
    if calls is not None and calls < 1:
        raise ValueError(f"calls must be >= 1, got {calls}")
    args, kw = tuple(args), dict(kwargs or {})
    result = CompareResult(calls=calls, budget_s=sample_seconds, min_samples=min_samples, title=title,
                           env=Environment.capture())
    try:
        result.signature = _signature(vs, args, kw, static)
    except Exception:  # a signature is a description; never let it stop a measurement
        result.signature = None
    outputs: dict[str, Any] = {}
    programs: dict[str, dict[str, Any]] = {}  # jitted variant -> its lowered and compiled program
    measured: dict[str, VariantResult] = {}
    for v in vs:
        if result.interrupted:
            result.variants.append(VariantResult(v.name, v.is_jitted, v.description, error="interrupted",
                                                 error_stage="resolve"))
            continue
        if on_variant is not None:
            on_variant(v.name)
        try:
            # The first of ROUNDS steady rounds; the others are interleaved with the other variants' below.
            rec, out = measure_variant(v, args, kw, budget_s=sample_seconds / ROUNDS,
                                       min_samples=max(1, -(-min_samples // ROUNDS)),
                                       max_samples=max(MAX_SAMPLES, min_samples) // ROUNDS + 1, phases=phases, warm=True,
                                       keep=programs.setdefault(v.name, {}))
        except KeyboardInterrupt:
            if not keep_partial_on_interrupt:
                raise
            # Keep what was measured: the caller still saves and shows it.
            result.interrupted = True
            result.errors.append(f"interrupted while measuring variant '{v.name}'")
            result.variants.append(VariantResult(v.name, v.is_jitted, v.description, error="interrupted",
                                                 error_stage="first_call"))
            continue
        result.variants.append(rec)
        measured[v.name] = rec
        if rec.first_call is not None and rec.error is None:
            outputs[v.name] = out
    if not result.interrupted:
        try:
            _sample_interleaved(vs, measured, args, kw, sample_seconds, min_samples)
        except KeyboardInterrupt:
            if not keep_partial_on_interrupt:
                raise
            result.interrupted = True
            result.errors.append("interrupted while sampling the steady state")
    for rec in result.variants:
        if rec.error is not None and rec.error != "interrupted":
            result.errors.append(f"variant '{rec.name}' failed ({rec.error_stage}): {rec.error}")

    result.reference = _pick_reference(result, vs, reference)
    mismatched: set[str] = set()
    if result.reference is not None:
        ref_out = outputs[result.reference]
        for v in vs:
            if v.name == result.reference or not v.check_output or v.name not in outputs:
                continue
            diff = compare_outputs(ref_out, outputs[v.name], result.reference, v.name)
            result.numerics.append(diff)
            if diff.status == "mismatch":
                mismatched.add(v.name)
                result.errors.append(f"variant '{v.name}' output does not match '{result.reference}': {diff.detail}")

    ok = [r for r in result.variants if r.ok and r.name not in mismatched]
    costs = [Costs.of(r) for r in ok]
    ref_costs = next((c for c in costs if c.name == result.reference), None)
    if ref_costs is not None:
        ratios = speedups({c.name: c.steady for c in costs}, ref_costs.name)
        for r, c in zip(ok, costs):
            r.speedup = ratios.get(r.name)
            if r.name != ref_costs.name:
                r.speedup_within_noise = not apart(c, ref_costs)
    result.break_even = break_even_table(costs)
    result.recommendation = recommend(costs, calls)
    if result.recommendation is not None:  # the sentence, for readers of the JSON
        result.recommendation.text = recommendation_text(result.recommendation)
    result.pessimisation = _losers_pessimisation(ok, programs)
    return result, outputs


# A jitted variant "loses" when an un-jitted one is this much faster per call: closer is within the drift
# between passes that compare's own verdicts treat as noise.
LOSS_MARGIN = 1.1


def _losers_pessimisation(ok: list[VariantResult], programs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The pessimisation verdict of each jitted variant that loses per call to an un-jitted one (eager, or
    Python calling a smaller jit): the program XLA compiled for it, as timed in its AOT phases."""
    from .analyze.pessimisation import detect_pessimisation
    from .collect.lowering import cost_dict

    unjitted = [r.steady.median for r in ok if not r.jitted and r.steady and r.steady.median is not None]
    out = {}
    for r in ok:
        program = programs.get(r.name, {})
        if not (r.jitted and unjitted and r.steady and r.steady.median is not None and "compiled" in program):
            continue
        if r.steady.median <= min(unjitted) * LOSS_MARGIN:
            continue
        try:
            out[r.name] = detect_pessimisation(program["compiled"].as_text() or "", cost_dict(program["lowered"]),
                                               cost_dict(program["compiled"]))
        except Exception:  # noqa: BLE001 - an explanation must never cost the measurement
            continue
    return out


@renamed_keywords(budget_s="sample_seconds")
def compare(
    variants: Mapping[str, Any] | Sequence[Variant],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    calls: int | None = None,
    sample_seconds: float = 0.5,
    min_samples: int = 5,
    reference: str | None = None,
    phases: bool = True,
    title: str = "",
    static: Sequence[str] = (),
) -> CompareResult:
    """Measure variants of one computation and recommend one for a workload of ``calls`` calls.

    For every variant: the first call from a cold cache (``jax.clear_caches()``; includes trace and
    compile), the trace / lower / compile split for jitted variants (ahead-of-time stages), and
    the steady per-call time (median, min, max; at least ``min_samples`` samples and about
    ``sample_seconds`` seconds). Outputs are compared with ``reference`` (default: the first eager
    variant); break-even call counts are computed for every pair. A variant that raises is
    recorded with its error and the others are still measured.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> def selu(x):
        ...     return 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67)
        >>> r = compare({"eager": selu, "jit": jax.jit(selu)}, (jnp.ones(1000),), calls=100)
        >>> r.recommendation.best in ("eager", "jit")
        True

    Args:
        variants: ``{"name": callable}`` or a list of ``Variant`` (for rebinding, see
            ``jitscope.scope_variants``). A ``jax.jit`` object counts as jitted.
        args, kwargs: the call arguments, the same for every variant.
        calls: the workload length for the recommendation; None recommends by steady state.
        sample_seconds, min_samples: steady-state sampling time (seconds) and least samples per variant
            (old keyword ``budget_s``, deprecated).
        reference: the variant outputs and speedups are compared with.
        phases: measure the trace/lower/compile split of jitted variants (costs one extra compile).
        title: a label carried into the result.
        static: names of ``kwargs`` that the jitted variants take as static arguments (recorded as
            static values in the result's signature; jit the variants with ``static_argnames`` yourself).

    Returns:
        A ``CompareResult``; ``result.errors`` lists failed variants and output mismatches.
    """
    return run_compare(variants, args, kwargs, calls=calls, sample_seconds=sample_seconds, min_samples=min_samples,
                       reference=reference, phases=phases, title=title, static=static)[0]


def _parse_variant(text: str) -> tuple[str, str]:
    name, sep, target = text.partition("=")
    if not sep:
        target = text
        name = text.rpartition(":")[2]
    if not name.strip() or ":" not in target:
        raise UsageError(f"--variant '{text}': expected NAME=MOD:FN, e.g. --variant fast=mypkg.ops:fast_loss")
    return name.strip(), target.strip()


def variants_for(target: str | None, inner_target: str | None, variant_specs: Sequence[str],
                 static_names: Sequence[str] = (), effort: bool = False) -> tuple[list[Variant], list[str]]:
    """The variants ``jitscope compare`` measures, and one line per variant that could not be resolved.

    ``target`` alone: eager vs ``jit(target)``. With ``inner_target``: eager / ``jit(inner)`` /
    ``jit(outer)`` / ``jit(both)`` by rebinding the inner function in its module. Each
    ``variant_specs`` item (``NAME=MOD:FN`` or ``MOD:FN``) adds one more. ``effort`` adds ``jit(target)``
    once per compile-effort setting the installed JAX has (``collect.variants.effort_settings``). A target that cannot be
    resolved becomes a failed variant (its line in the returned problems) so the others still run.

    Raises:
        UsageError: nothing to compare, ``--inner`` without a target, a malformed spec, a name used twice.
    """
    variants: list[Variant] = []
    problems: list[str] = []
    static = tuple(static_names)
    if target:
        try:
            outer = resolve_callable(target)
        except UsageError as e:
            problems.append(str(e))
            outer = None
        if inner_target:
            try:
                inner = resolve_target(inner_target)
                if not callable(inner.obj):
                    raise UsageError(f"'{inner_target}' is a {type(inner.obj).__name__}, not a function")
            except UsageError as e:
                problems.append(str(e))
                inner = None
            if outer is not None and inner is not None:
                variants += scope_variants(outer, inner.module, inner.attr, static)
            else:
                names = ["eager", "jit(inner)", "jit(outer)", "jit(both)"]
                if outer is not None:  # the outer function alone can still be measured
                    variants += [Variant("eager", plain_function(outer), False),
                                 Variant("jit(outer)", jit_like(outer, static), True)]
                    names = ["jit(inner)", "jit(both)"]
                variants += [Variant(n, None, error=problems[-1]) for n in names]
        elif outer is not None:
            base = plain_function(outer)
            label = getattr(base, "__name__", "fn")
            variants += [Variant("eager", base, False, f"{label} op by op"),
                         Variant(f"jit({label})", jit_like(outer, static), True)]
        else:
            variants += [Variant("eager", None, error=problems[-1]), Variant("jit", None, error=problems[-1])]
        if effort and outer is not None:
            extra = effort_variants(outer, static)
            if not extra:
                import jax

                raise UsageError(f"--effort: JAX {jax.__version__} has no compile-effort setting "
                                 "(jax_optimization_level, jax_exec_time_optimization_effort)")
            variants += extra
    elif inner_target:
        raise UsageError("--inner needs the outer function as TARGET: jitscope compare MOD:G --inner MOD:F")
    elif effort:
        raise UsageError("--effort needs the function as TARGET: jitscope compare MOD:FN --effort")
    for text in variant_specs:
        name, target = _parse_variant(text)
        try:
            variants.append(Variant(name, resolve_callable(target)))
        except UsageError as e:
            problems.append(str(e))
            variants.append(Variant(name, None, error=str(e)))
    if not variants:
        raise UsageError("nothing to compare: give MOD:FN (eager vs jit), --inner, or --variant NAME=MOD:FN")
    names = [v.name for v in variants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"variant name(s) used twice: {', '.join(dupes)}")
    return variants, problems


def losing_variant_command(result: CompareResult, variants: Sequence[Variant], target: str | None,
                           inner_target: str | None, variant_specs: Sequence[str], arg_specs: Sequence[str],
                           static: Sequence[str], args_from: str | None) -> InspectCommand | None:
    """The ``jitscope inspect`` call that explains the jitted variant that loses (the CLI's own target and
    ``--arg``/``--static``/``--args-from``, passed on as given); None when no jitted variant loses or the
    loser is ``jit(inner)`` (its arguments are the outer function's business) or a plain function."""
    rec = result.recommendation
    if rec is None or not rec.totals_s:
        return None
    targets: dict[str, str] = {}
    of_target = variants[:len(variants) - len(variant_specs)]  # variants_for puts the --variant ones last
    for v in of_target:  # jit(TARGET), or with --inner jit(outer) and jit(both) (inspect sees the inner inlined)
        if target and v.fn is not None and v.is_jitted and (not inner_target or v.name in ("jit(outer)", "jit(both)")):
            targets[v.name] = target
    jitted = {v.name for v in variants if v.fn is not None and v.is_jitted}
    for spec in variant_specs:
        name, spec_target = _parse_variant(spec)
        if name in jitted:
            targets[name] = spec_target
    loser = losing_variant(rec.totals_s, rec.best, list(targets))
    if loser is None or (rec.within_noise and loser == rec.runner_up):
        return None
    return InspectCommand(targets[loser], list(arg_specs), list(static), args_from=args_from or "", function=loser,
                          explains="losing_variant", detail=loser, seconds=rec.totals_s[loser])
