"""Seed 003: builtin ``sum`` over a JAX array unrolls; ``jnp.sum`` is one ``reduce_sum``.

Integral of the product of two Gaussian pdfs on a grid of N points. Python's ``sum`` takes
each element (a slice + reshape) and adds them one by one, so the jaxpr, and the time to jit
it, grows with N; ``jnp.sum`` stays one equation. We measure jaxpr size and time to jit
(trace + lower + compile from a cold cache) over N and fit growth exponents (log-log slope).
The seed: N=1600 took about 5.2 s to jit while the unjitted function took 0.02 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..analyze.compare import fit_exponent, fmt_ratio
from ..collect.clock import measure
from ..collect.variants import aot_phases
from ..render.console import fmt_seconds
from ..results.demo import CaseStudy, Column

NAME = "builtin_sum"
TITLE = "builtin sum vs jnp.sum: jaxpr size and time to jit over N"
SEED = "003_5bc047ac44cc4edb.txt"
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


def measure_n(n: int, eager_budget_s: float = 0.05) -> dict[str, Any]:
    """Jaxpr equations, time to jit (trace + lower + compile) and eager per-call time at one N."""
    import jax

    builtin, jnp_sum = make_integrands(n)
    row: dict[str, Any] = {"n": n}
    for label, fn in (("builtin", builtin), ("jnp", jnp_sum)):
        row[f"eqns_{label}"] = len(jax.make_jaxpr(fn)(1.0).jaxpr.eqns)
        phases = aot_phases(jax.jit(fn), (1.0,), {})
        row[f"jit_{label}_s"] = sum(phases.values())
        row[f"compile_{label}_s"] = phases["compile"]
    row["eager_builtin_s"] = measure(lambda: builtin(1.0), budget_s=eager_budget_s, min_samples=3).median
    return row


def run(quick: bool = False) -> CaseStudy:
    """Measure every N; the lesson quotes the growth exponents and the largest N's times."""
    t0 = time.perf_counter()
    rows = [measure_n(n, 0.02 if quick else 0.05) for n in grid_sizes(quick)]
    ns = [r["n"] for r in rows]
    exp = {k: fit_exponent(ns, [r[k] for r in rows]) for k in ("eqns_builtin", "eqns_jnp", "jit_builtin_s", "jit_jnp_s")}
    # The fixed cost of any compile (~tens of ms) flattens the raw fit; the time beyond jnp.sum's
    # is what the unrolling adds.
    excess = [max(r["jit_builtin_s"] - r["jit_jnp_s"], 0.0) for r in rows]
    exp["excess"] = fit_exponent(ns, excess)
    last = rows[-1]
    ratio = last["jit_builtin_s"] / last["jit_jnp_s"]

    def e(k: str) -> str:
        return "?" if exp[k] is None else f"{exp[k]:.2f}"

    lesson = (f"builtin sum unrolls: its jaxpr grows as N^{e('eqns_builtin')} ({last['eqns_builtin']:,} equations at "
              f"N={last['n']:,}) and its time to jit as N^{e('jit_builtin_s')} ({fmt_seconds(last['jit_builtin_s'])}, "
              f"{fmt_ratio(ratio)} jnp.sum's {fmt_seconds(last['jit_jnp_s'])}; the time beyond jnp.sum's grows as "
              f"N^{e('excess')}); jnp.sum stays at "
              f"{last['eqns_jnp']} equations (N^{e('eqns_jnp')}); unjitted builtin sum takes "
              f"{fmt_seconds(last['eager_builtin_s'])} per call (seed: 5.2 s to jit vs 0.02 s at N=1600).")
    facts = {"n": ns, "exponent_eqns_builtin": exp["eqns_builtin"], "exponent_eqns_jnp": exp["eqns_jnp"],
             "exponent_jit_builtin": exp["jit_builtin_s"], "exponent_jit_jnp": exp["jit_jnp_s"], "exponent_jit_excess": exp["excess"],
             "largest_n": last["n"], "jit_ratio_at_largest_n": ratio}
    columns = [Column("n", "N", "int"), Column("eqns_builtin", "jaxpr eqns (sum)", "int"),
               Column("eqns_jnp", "jaxpr eqns (jnp.sum)", "int"),
               Column("jit_builtin_s", "time to jit (sum)", "s"), Column("jit_jnp_s", "time to jit (jnp.sum)", "s"),
               Column("compile_builtin_s", "XLA compile (sum)", "s"),
               Column("eager_builtin_s", "unjitted sum per call", "s")]
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, columns=columns, rows=rows, facts=facts,
                     seconds=time.perf_counter() - t0)
