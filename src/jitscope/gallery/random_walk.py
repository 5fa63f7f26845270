"""Seed 001: Gaussian random walk, from Python loops to ``lax.scan`` + ``vmap`` + ``jit``.

The seed: the jitted version is "dozens of times" faster than pure Python, "most of it from
``lax.scan`` alone" (a scan is one XLA While loop; a Python loop inside jit is unrolled). Note
that ``lax.scan`` compiles its loop even without an outer ``jax.jit``: the un-jitted scan
variants pay XLA compiles on their first call too, and the lesson quotes how many.
We add a vectorised NumPy version (``cumsum`` of a normal matrix) as the honest baseline.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from .._format import fmt_seconds
from ..results.demo import CaseStudy
from . import ARTICLES
from ._common import budget, fastest, first, leaders, leaders_phrase, steady, versus

NAME = "random_walk"
TITLE = "Gaussian random walk: Python loops vs lax.scan vs scan+vmap vs jit"
SEED = ARTICLES[1]  # 001_d24eb31337567946.txt
PUBLISHED = "jit 'dozens of times' faster than pure Python; most of it from lax.scan alone"


def gaussian_random_walk_python(num_realizations: int, num_timesteps: int, seed: int = 0) -> Any:
    """The seed's pure Python + NumPy version (two Python loops, one draw per step)."""
    import numpy as onp

    rng = onp.random.default_rng(seed)
    rws = []
    for _ in range(num_realizations):
        rw = []
        prev_draw = 0.0
        for _ in range(num_timesteps):
            prev_draw = rng.normal(loc=prev_draw)
            rw.append(prev_draw)
        rws.append(rw)
    return onp.asarray(rws, dtype=onp.float32)


def gaussian_random_walk_numpy(num_realizations: int, num_timesteps: int, seed: int = 0) -> Any:
    """Vectorised NumPy: one normal matrix, cumulative sum along time."""
    import numpy as onp

    rng = onp.random.default_rng(seed)
    return onp.cumsum(rng.standard_normal((num_realizations, num_timesteps), dtype=onp.float32), axis=1)


def new_draw(prev_val: Any, key: Any) -> tuple[Any, Any]:
    """One step of the walk (the seed's ``new_draw``)."""
    from jax import random

    new = prev_val + random.normal(key)
    return new, prev_val


def grw_draw(key: Any, num_steps: int) -> tuple[Any, Any]:
    """One realisation with ``lax.scan`` (the seed's ``grw_draw``)."""
    from jax import lax, random

    keys = random.split(key, num_steps)
    return lax.scan(new_draw, 0.0, keys)


def gaussian_random_walk_scan(key: Any, num_realizations: int, num_timesteps: int) -> Any:
    """``lax.scan`` per realisation, realisations in a Python loop."""
    import jax.numpy as jnp
    from jax import random

    keys = random.split(key, num_realizations)
    return jnp.stack([grw_draw(k, num_timesteps)[1] for k in keys])


def gaussian_random_walk_jax(key: Any, num_realizations: int, num_timesteps: int) -> Any:
    """``lax.scan`` + ``vmap`` over realisations (the seed's ``gaussian_random_walk_jax``)."""
    from jax import random, vmap

    keys = random.split(key, num_realizations)
    _, trajectories = vmap(partial(grw_draw, num_steps=num_timesteps))(keys)
    return trajectories


def sizes(quick: bool) -> tuple[int, int]:
    """(realisations, time steps): 100 x 1000, or 20 x 200 with --quick."""
    return (20, 200) if quick else (100, 1000)


def run(quick: bool = False) -> CaseStudy:
    """Measure the five versions; the lesson ranks them and splits the gain between scan and jit."""
    import jax
    from jax import random

    from .._compare import compare
    from ..collect.variants import Variant

    t0 = time.perf_counter()
    n, t = sizes(quick)
    b = budget(quick)
    key = random.PRNGKey(0)
    # Every variant takes the key; the NumPy ones ignore it (they draw from their own generator).
    variants = [
        Variant("python loops", lambda k: gaussian_random_walk_python(n, t), False,
                "the article's double Python loop, NumPy draws", check_output=False),
        Variant("numpy vectorised", lambda k: gaussian_random_walk_numpy(n, t), False,
                "cumsum of an (N, T) normal matrix", check_output=False),
        # lax.scan outside jit still compiles its whole loop (one XLA While): "not jitted" here
        # means no outer jax.jit, not "op by op".
        Variant("lax.scan", lambda k: gaussian_random_walk_scan(k, n, t), False,
                "scan (compiled by lax.scan itself, no outer jit); realisations in a Python loop"),
        Variant("scan+vmap", lambda k: gaussian_random_walk_jax(k, n, t), False,
                "vmap of scan (compiled by lax.scan itself, no outer jit)"),
        Variant("jit(scan+vmap)", jax.jit(lambda k: gaussian_random_walk_jax(k, n, t)), True,
                "jax.jit of scan+vmap"),
    ]
    r = compare(variants, (key,), sample_seconds=b.budget_s, min_samples=b.min_samples, reference="lax.scan",
                title=f"Gaussian random walk, {n} realisations x {t} steps")
    py, sc, sv, jt, npv = (steady(r, k) for k in ("python loops", "lax.scan", "scan+vmap", "jit(scan+vmap)",
                                                   "numpy vectorised"))
    comp = {k: r.variant(k).compiles_first_call for k in ("lax.scan", "scan+vmap", "jit(scan+vmap)")}
    fc = {k: first(r, k) for k in comp}
    top = leaders(r)
    best = top[0]
    jax_names = ["lax.scan", "scan+vmap", "jit(scan+vmap)"]
    best_jax = fastest(r, jax_names).name
    total = py / steady(r, best_jax)
    lesson = (f"{leaders_phrase(top)} ({fmt_seconds(steady(r, best))} per walk); "
              f"against the Python loops jit(scan+vmap) is {versus(r, 'jit(scan+vmap)', 'python loops')} (the article: 'dozens of times'), "
              f"lax.scan alone {versus(r, 'lax.scan', 'python loops')}, scan+vmap {versus(r, 'scan+vmap', 'python loops')}; "
              f"against jit(scan+vmap) vectorised NumPy is {versus(r, 'numpy vectorised', 'jit(scan+vmap)')} on this machine. "
              f"Without an outer jit the scan loop is still compiled (one XLA While, plus one compile per "
              f"eager op): first calls ran {comp['lax.scan']} XLA compiles for lax.scan "
              f"({fmt_seconds(fc['lax.scan'])}), scan+vmap "
              f"{comp['scan+vmap']} ({fmt_seconds(fc['scan+vmap'])}), jit(scan+vmap) "
              f"{comp['jit(scan+vmap)']} ({fmt_seconds(fc['jit(scan+vmap)'])}).")
    facts = {"realisations": n, "steps": t, "fastest": best, "within_noise_of_fastest": top[1:], "fastest_jax": best_jax,
             "speedup_jit_vs_python": py / jt, "speedup_scan_vs_python": py / sc,
             "speedup_scan_vmap_vs_python": py / sv, "speedup_best_jax_vs_python": total,
             "numpy_vs_jit": jt / npv,
             "compiles_first_call": comp, "first_call_s": fc}
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, compare=r, facts=facts,
                     seconds=time.perf_counter() - t0)
