"""Seed 000: which scope to jit. ``g`` calls ``f`` 100 times in a Python loop.

Variants (built by ``scope_variants``, which rebinds ``f`` in this module while measuring):
eager, jit(f) (g stays Python), jit(g) (f traced inline), jit(both) (the inner jit is inlined
into the outer one, so it should cost the same as jit(g)). Seed figures on ones((1000,1000)):
jit(g) first call 0.5 s then 0.005 s; jit(f) about 0.075 s per call; no jit 0.3 s.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from .._format import fmt_seconds
from ..results.demo import CaseStudy
from . import ARTICLES
from ._common import budget, first, leaders, leaders_phrase, payback, steady, versus

NAME = "jit_scope"
TITLE = "Which scope to jit: eager, jit(f), jit(g), both"
SEED = ARTICLES[0]  # 000_58cf8412eecf9ed2.txt
PUBLISHED = "jit(g) first call 0.5 s then 0.005 s; jit(f) ~0.075 s per call; no jit 0.3 s"
INNER_CALLS = 100


def f(x: Any) -> Any:
    """The inner kernel: ``x * 2 + sin(x)``."""
    import jax.numpy as jnp

    return x * 2 + jnp.sin(x)


def g(x: Any) -> Any:
    """The outer program: ``f`` 1 + 100 times in a Python loop, then ``mean(y) + sum(x)``."""
    import jax.numpy as jnp

    y = f(x)
    for _ in range(INNER_CALLS):
        y = f(y)
    return jnp.mean(y) + jnp.sum(x)


def shape(quick: bool) -> tuple[int, int]:
    """Input shape: the seed's (1000, 1000), or (200, 200) with --quick."""
    return (200, 200) if quick else (1000, 1000)


def run(quick: bool = False) -> CaseStudy:
    """Measure the four scopes on ``ones(shape)``; the lesson names the winner, its first-call cost
    and whether the inner jit changed anything under the outer one."""
    import jax.numpy as jnp

    from .._compare import compare
    from ..collect.variants import scope_variants

    t0 = time.perf_counter()
    b = budget(quick)
    shp = shape(quick)
    x = jnp.ones(shp)
    variants = scope_variants(g, sys.modules[__name__], "f")
    r = compare(variants, (x,), sample_seconds=b.budget_s, min_samples=3 if not quick else b.min_samples,
                reference="eager", title=f"g calls f {INNER_CALLS + 1} times, x = ones({shp[0]}, {shp[1]})")
    top = leaders(r)
    best = top[0]
    both_vs_g = steady(r, "jit(both)") / steady(r, "jit(g)")
    same = abs(both_vs_g - 1) < 0.15
    eager = steady(r, "eager")
    others = ", ".join(f"{n} {versus(r, n, 'eager')}" for n in ("jit(f)", "jit(g)", "jit(both)"))
    outer = [n in ("jit(g)", "jit(both)") for n in top]
    verdict = ("as the article advises" if all(outer) else "unlike the article's advice" if not any(outer)
               else "so this run neither confirms nor refutes the article's advice")
    lesson = (f"{leaders_phrase(top, 'fastest per call')} ({fmt_seconds(steady(r, best))}; {verdict} to jit the "
              f"outermost function); "
              f"vs eager ({fmt_seconds(eager)}): {others}; {payback(r, 'jit(g)', 'eager')}; jit(both) runs at "
              f"{both_vs_g:.2f}x jit(g)'s time" + (" (the same: the inner jit is inlined)." if same else "."))
    facts = {"shape": list(shp), "fastest": best, "within_noise_of_fastest": top[1:], "jit_both_over_jit_g": both_vs_g,
             "speedup_best_vs_eager": steady(r, "eager") / steady(r, best),
             "speedup_jit_f_vs_eager": steady(r, "eager") / steady(r, "jit(f)"),
             "jit_g_first_call_s": first(r, "jit(g)")}
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, compare=r, facts=facts,
                     seconds=time.perf_counter() - t0)
