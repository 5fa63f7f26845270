"""Seed 003: builtin ``sum`` over a JAX array unrolls; ``jnp.sum`` is one ``reduce_sum``.

Integral of the product of two Gaussian pdfs on a grid of N points. Python's ``sum`` takes
each element (a slice + reshape) and adds them one by one, so the jaxpr, and the time to jit
it, grows with N; ``jnp.sum`` stays one equation. The measurement is ``jitscope.scale`` on both
versions (the same equation count, cold trace + lower + compile and growth fits that
``jitscope scale`` reports), plus the unjitted per-call time.
The seed: N=1600 took about 5.2 s to jit while the unjitted function took 0.02 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .._format import fmt_ratio, fmt_seconds
from ..analyze.scaling import fit_growth
from ..collect.clock import measure
from ..results.demo import CaseStudy, Column
from . import ARTICLES

NAME = "builtin_sum"
TITLE = "builtin sum vs jnp.sum: jaxpr size and time to jit over N"
SEED = ARTICLES[3]  # 003_5bc047ac44cc4edb.txt
PUBLISHED = "N=1600: about 5.2 s to jit (builtin sum); unjitted 0.02 s"


def make_integrands(n: int) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """``integrate(mu)`` on an N-point grid over [-100, 100], with builtin ``sum`` and with ``jnp.sum``."""
    import jax.numpy as jnp
    from jax.scipy.stats.norm import pdf

    grid = jnp.linspace(-100.0, 100.0, n)
    proba = pdf(grid)
    weight = 200.0 / n

    def integrate_builtin_sum(mu_new):
        return sum(proba * pdf(grid - mu_new) * weight)

    def integrate_jnp_sum(mu_new):
        return jnp.sum(proba * pdf(grid - mu_new) * weight)

    return integrate_builtin_sum, integrate_jnp_sum


def grid_sizes(quick: bool) -> list[int]:
    """The Ns measured: 100..1600 (doubling), or 50..400 with --quick."""
    return [50, 100, 200, 400] if quick else [100, 200, 400, 800, 1600]


def make_builtin(n: int) -> tuple[Callable[[Any], Any], tuple]:
    """``jitscope.scale`` factory: the builtin-``sum`` integral on an N-point grid, called at mu=1."""
    return make_integrands(n)[0], (1.0,)


def make_jnp(n: int) -> tuple[Callable[[Any], Any], tuple]:
    """``jitscope.scale`` factory: the ``jnp.sum`` integral on an N-point grid, called at mu=1."""
    return make_integrands(n)[1], (1.0,)


def measure_rows(ns: list[int], eager_budget_s: float = 0.05,
                 repeats: int | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``jitscope.scale`` of both versions over ``ns`` plus the unjitted builtin-sum per-call time.

    Returns one row per N (equations as ``scale`` counts them, time to jit = trace + lower +
    compile, XLA compile alone, unjitted per call) and the two ``ScaleResult``s.
    """
    from .._scale import scale

    scales = {"builtin": scale(make_builtin, ns, repeats=repeats, run=False, target=f"{__name__}:make_builtin"),
              "jnp": scale(make_jnp, ns, repeats=repeats, run=False, target=f"{__name__}:make_jnp")}
    for res in scales.values():
        failed = [p for p in res.points if p.error]
        if failed:
            raise RuntimeError(f"{res.target} failed at N={failed[0].n}: {failed[0].error}")
    rows: list[dict[str, Any]] = []
    for pb, pj in zip(scales["builtin"].points, scales["jnp"].points, strict=True):
        row: dict[str, Any] = {"n": pb.n}
        for label, p in (("builtin", pb), ("jnp", pj)):
            row[f"eqns_{label}"] = p.equations
            row[f"jit_{label}_s"] = sum(p.seconds(k) or 0.0 for k in ("trace", "lower", "compile"))
            row[f"compile_{label}_s"] = p.seconds("compile")
        builtin = make_integrands(pb.n)[0]
        row["eager_builtin_s"] = measure(lambda f=builtin: f(1.0), budget_s=eager_budget_s, min_samples=3).median
        rows.append(row)
    return rows, scales


def _interval(fit: Any) -> str:
    """", 95% interval 1.10-1.40: superlinear" (or the bands it spans); "" with too few sizes."""
    if fit.exponent_low is None or fit.exponent_high is None:
        return ""
    return f", 95% interval {fit.exponent_low:.2f}-{fit.exponent_high:.2f}: {fit.growth_range}"


def run(quick: bool = False) -> CaseStudy:
    """Measure every N; the lesson quotes the growth exponents and the largest N's times."""
    t0 = time.perf_counter()
    # --quick: one cold compile per size; the full demo lets scale repeat until the growth class settles.
    rows, scales = measure_rows(grid_sizes(quick), 0.02 if quick else 0.05, repeats=1 if quick else None)
    ns = [r["n"] for r in rows]
    exp = {"eqns_builtin": scales["builtin"].fit("equations").exponent,  # type: ignore[union-attr]
           "eqns_jnp": scales["jnp"].fit("equations").exponent}  # type: ignore[union-attr]
    for k in ("jit_builtin_s", "jit_jnp_s"):
        exp[k] = fit_growth(k, ns, [r[k] for r in rows]).exponent
    # The fixed cost of any compile (~tens of ms) flattens the raw fit; the time beyond jnp.sum's
    # is what the unrolling adds.
    excess = [max(r["jit_builtin_s"] - r["jit_jnp_s"], 0.0) for r in rows]
    excess_fit = fit_growth("excess", ns, excess)
    exp["excess"] = excess_fit.exponent
    last = rows[-1]
    ratio = last["jit_builtin_s"] / last["jit_jnp_s"]

    def e(k: str) -> str:
        return "?" if exp[k] is None else f"{exp[k]:.2f}"

    lesson = (f"builtin sum unrolls: its jaxpr grows as N^{e('eqns_builtin')} ({last['eqns_builtin']:,} equations at "
              f"N={last['n']:,}) and its time to jit as N^{e('jit_builtin_s')} ({fmt_seconds(last['jit_builtin_s'])}, "
              f"{fmt_ratio(ratio)} jnp.sum's {fmt_seconds(last['jit_jnp_s'])}; the time beyond jnp.sum's grows as "
              f"N^{e('excess')}{_interval(excess_fit)}); jnp.sum stays at "
              f"{last['eqns_jnp']} equations (N^{e('eqns_jnp')}); unjitted builtin sum takes "
              f"{fmt_seconds(last['eager_builtin_s'])} per call (the article: 5.2 s to jit vs 0.02 s at N=1600).")
    facts = {"n": ns, "exponent_eqns_builtin": exp["eqns_builtin"], "exponent_eqns_jnp": exp["eqns_jnp"],
             "exponent_jit_builtin": exp["jit_builtin_s"], "exponent_jit_jnp": exp["jit_jnp_s"],
             "exponent_jit_excess": exp["excess"],
             "exponent_jit_excess_interval": [excess_fit.exponent_low, excess_fit.exponent_high],
             "exponent_jit_excess_growth": excess_fit.growth_range, "largest_n": last["n"], "jit_ratio_at_largest_n": ratio}
    columns = [Column("n", "N", "int"), Column("eqns_builtin", "jaxpr eqns (sum)", "int"),
               Column("eqns_jnp", "jaxpr eqns (jnp.sum)", "int"),
               Column("jit_builtin_s", "time to jit (sum)", "s"), Column("jit_jnp_s", "time to jit (jnp.sum)", "s"),
               Column("compile_builtin_s", "XLA compile (sum)", "s"),
               Column("eager_builtin_s", "unjitted sum per call", "s")]
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, columns=columns, rows=rows, facts=facts,
                     seconds=time.perf_counter() - t0)
