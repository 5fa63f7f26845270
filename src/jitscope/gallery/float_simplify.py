"""Seed 002: ``x + y - x`` under jit vs eager.

The seed claims XLA simplifies ``x + y - x`` to ``y`` under jit, so jit returns y exactly while
eager float32 arithmetic loses y to rounding. Whether today's XLA does this is measured, not
assumed: we compare jit with eager, and both with the exact answer ``y``.
"""

from __future__ import annotations

import time
from typing import Any

from ..results.demo import CaseStudy, Column
from . import ARTICLES
from ._common import budget

NAME = "float_simplify"
TITLE = "x + y - x: jit vs eager numerics"
SEED = ARTICLES[2]  # 002_9a6cbb8ce9aec62c.txt
PUBLISHED = "jit returns y (x and -x cancel); eager float32 accumulates rounding error"


def f(x: Any, y: Any) -> Any:
    """The seed's function."""
    return x + y - x


def make_inputs(n: int) -> tuple[Any, Any]:
    """x spans 1 .. 1e6 (so float32 rounding of x + y grows with x); y = 0.001 everywhere (the seed's y)."""
    import jax.numpy as jnp

    x = jnp.logspace(0.0, 6.0, n, dtype=jnp.float32)
    y = jnp.full((n,), 0.001, dtype=jnp.float32)
    return x, y


def errors_vs_exact(out: Any, y: Any) -> tuple[float, float]:
    """Max abs and max rel error of ``out`` against the exact answer ``y``."""
    import numpy as np

    out64, y64 = np.asarray(out, np.float64), np.asarray(y, np.float64)
    err = np.abs(out64 - y64)
    return float(err.max()), float((err / np.abs(y64)).max())


def run(quick: bool = False) -> CaseStudy:
    """Compare jit with eager and both with y; the lesson says whether XLA simplified the expression."""
    import jax
    import numpy as np

    from .._compare import run_compare

    t0 = time.perf_counter()
    b = budget(quick)
    n = 1000
    x, y = make_inputs(n)
    r, outs = run_compare({"eager": f, "jit(f)": jax.jit(f)}, (x, y), sample_seconds=b.budget_s,
                          min_samples=b.min_samples, reference="eager", title=f"x + y - x on {n} points, x = 1..1e6")
    rows = []
    for name in ("eager", "jit(f)"):
        if name in outs:
            abs_e, rel_e = errors_vs_exact(outs[name], y)
            exact = int(np.sum(np.asarray(outs[name]) == np.asarray(y)))
            rows.append({"variant": name, "max_abs_vs_y": abs_e, "max_rel_vs_y": rel_e, "exact": exact, "n": n})
    diff = next(d for d in r.numerics if d.candidate == "jit(f)")
    identical = bool(np.array_equal(np.asarray(outs["eager"]), np.asarray(outs["jit(f)"])))
    e_eager, e_jit = rows[0]["max_rel_vs_y"], rows[1]["max_rel_vs_y"]
    if identical:
        lesson = (f"jit and eager agree bit for bit (max abs difference 0): XLA did not simplify x + y - x on this "
                  f"JAX/CPU, so both lose y to float32 rounding (max rel error vs y {e_jit:.3g}; "
                  f"{rows[1]['exact']} of {n} results equal y exactly). The article's claim does not hold here.")
    else:
        closer = "jit(f)" if e_jit < e_eager else "eager"
        lesson = (f"jit differs from eager (max abs {diff.max_abs_error:.3g}, max rel {diff.max_rel_error:.3g}): "
                  f"{closer} is closer to the exact y (max rel error vs y: jit {e_jit:.3g}, eager {e_eager:.3g}; "
                  f"jit gives y exactly in {rows[1]['exact']} of {n} points).")
    facts = {"identical": identical, "max_abs_jit_vs_eager": diff.max_abs_error,
             "max_rel_jit_vs_eager": diff.max_rel_error, "max_rel_vs_y_eager": e_eager, "max_rel_vs_y_jit": e_jit,
             "exact_jit": rows[1]["exact"], "exact_eager": rows[0]["exact"], "n": n}
    columns = [Column("variant", "variant"), Column("max_abs_vs_y", "max abs error vs y", "float"),
               Column("max_rel_vs_y", "max rel error vs y", "float"), Column("exact", "results == y", "int"),
               Column("n", "points", "int")]
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, compare=r, columns=columns, rows=rows, facts=facts,
                     seconds=time.perf_counter() - t0)
