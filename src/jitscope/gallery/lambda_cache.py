"""Seed 002: ``jax.jit(lambda ...)`` inside a loop recompiles on every iteration.

jit caches compiled code by function identity; a fresh lambda is a new function each time,
so every ``jax.jit(lambda x: body(x))(i)`` traces and compiles again. The seed measured
203 ms per loop (20 iterations) with the lambda vs 15.2 ms with the cached function.
"""

from __future__ import annotations

import time
from typing import Any

from .._format import fmt_ratio, fmt_seconds
from ..results.demo import CaseStudy
from . import ARTICLES
from ._common import budget, steady

NAME = "lambda_cache"
TITLE = "jit of a fresh lambda in a loop vs the cached function"
SEED = ARTICLES[2]  # 002_9a6cbb8ce9aec62c.txt
PUBLISHED = "203 ms per loop with the lambda vs 15.2 ms with the cached function"
LOOP = 20


def unjitted_loop_body(prev_i: Any) -> Any:
    """The loop body from the seed."""
    return prev_i + 1


def g_inner_jitted_lambda(x: Any) -> Any:
    """Don't do this: a new lambda, so a new cache entry, on every iteration."""
    import jax

    i = 0
    while i < LOOP:
        i = jax.jit(lambda x: unjitted_loop_body(x))(i)
    return x + i


def g_inner_jitted_normal(x: Any) -> Any:
    """This is fine: the same function object, so jit finds its compiled code."""
    import jax

    i = 0
    while i < LOOP:
        i = jax.jit(unjitted_loop_body)(i)
    return x + i


def run(quick: bool = False) -> CaseStudy:
    """Measure both loops; the lesson quotes the per-loop times and compiles per loop."""
    import jax.numpy as jnp

    from .._compare import compare

    t0 = time.perf_counter()
    b = budget(quick)
    r = compare({"fresh lambda": g_inner_jitted_lambda, "cached function": g_inner_jitted_normal},
                (jnp.float32(10.0),), sample_seconds=b.budget_s, min_samples=b.min_samples, reference="cached function",
                title=f"jax.jit inside a {LOOP}-iteration loop")
    lam, cached = steady(r, "fresh lambda"), steady(r, "cached function")
    c_lam = r.variant("fresh lambda").compiles_per_call or 0.0
    c_cached = r.variant("cached function").compiles_per_call or 0.0
    slower = lam / cached
    lesson = (f"the fresh lambda costs {fmt_seconds(lam)} per loop vs {fmt_seconds(cached)} for the cached function "
              f"({fmt_ratio(slower)} {'slower' if slower >= 1 else 'faster'}; the article: 203 ms vs 15.2 ms): "
              f"it compiled {c_lam:.3g} times per loop vs {c_cached:.3g}.")
    facts = {"loop": LOOP, "per_loop_lambda_s": lam, "per_loop_cached_s": cached, "ratio": slower,
             "compiles_per_loop_lambda": c_lam, "compiles_per_loop_cached": c_cached}
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, compare=r, facts=facts,
                     seconds=time.perf_counter() - t0)
