"""Seed 001: SELU on normal samples, eager vs ``jax.jit``.

The seed says jit makes SELU "several times" faster (fewer dispatches: the ``where``, ``exp``,
multiplies run as one fused XLA computation instead of one launch per primitive).
"""

from __future__ import annotations

import time
from typing import Any

from ..results.demo import CaseStudy
from . import ARTICLES
from ._common import budget, leaders, payback, steady, versus

NAME = "selu"
TITLE = "SELU: eager vs jit"
SEED = ARTICLES[1]  # 001_d24eb31337567946.txt
PUBLISHED = "jit is 'several times' faster than eager"


def selu(x: Any, alpha: float = 1.67, lmbda: float = 1.05) -> Any:
    """SELU exactly as in the seed (jax.numpy)."""
    import jax.numpy as jnp

    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def make_input(n: int, seed: int = 44) -> Any:
    """``n`` standard normal samples, as in the seed (``random.normal(PRNGKey(44), (n,))``)."""
    from jax import random

    return random.normal(random.PRNGKey(seed), (n,))


def size(quick: bool) -> int:
    """Number of samples: 1e6 as in the seed, 1e5 with --quick."""
    return 100_000 if quick else 1_000_000


def run(quick: bool = False) -> CaseStudy:
    """Measure eager SELU against ``jax.jit(selu)``; the lesson says which wins and by how much."""
    import jax

    from .._compare import compare

    t0 = time.perf_counter()
    n = size(quick)
    b = budget(quick)
    x = make_input(n)
    r = compare({"eager": selu, "jit(selu)": jax.jit(selu)}, (x,), sample_seconds=b.budget_s,
                min_samples=b.min_samples, reference="eager", title=f"SELU on {n:,} normal samples")
    speedup = steady(r, "eager") / steady(r, "jit(selu)")
    top = leaders(r)
    best = top[0]
    head = f"{best} wins" if len(top) == 1 else "eager and jit(selu) are within noise of each other"
    lesson = (f"{head}: against eager, jit(selu) is {versus(r, 'jit(selu)', 'eager')} on {n:,} samples "
              f"(the article: 'several times'); {payback(r, 'jit(selu)', 'eager')}.")
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, compare=r,
                     facts={"n": n, "speedup_jit_vs_eager": speedup, "fastest": best, "within_noise_of_fastest": top[1:]},
                     seconds=time.perf_counter() - t0)
