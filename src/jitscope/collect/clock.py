"""Timing primitives: block until results are ready, repeat to a budget, report medians.

Every steady-state number in jitscope comes from ``measure``: it warms up, then
repeats until both ``min_samples`` and ``budget_s`` are met (or ``max_samples``),
blocking on every output leaf so asynchronous dispatch never hides work.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..model import Timing


def block(value: Any) -> Any:
    """Block until every array in ``value`` (any pytree) is computed; return it."""
    import jax

    for leaf in jax.tree_util.tree_leaves(value):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return value


@contextlib.contextmanager
def persistent_cache_disabled() -> Iterator[None]:
    """Turn JAX's persistent (on-disk) compilation cache off for the block; restore it afterwards.

    ``jax.clear_caches()`` empties the in-memory caches only. With a cache directory configured
    (``jax_compilation_cache_dir`` / ``JAX_COMPILATION_CACHE_DIR``), a "cold" compile would
    otherwise load the executable written by an earlier compile of the same program (ours or a
    previous run's), and the measured compile time would be a disk read.

    JAX decides once per process whether the cache is used, so flipping the public flag
    ``jax_enable_compilation_cache`` alone does nothing after the first compile; the public
    ``jax.experimental.compilation_cache.compilation_cache.reset_cache()`` makes JAX decide again.
    Both are undone on exit (also when the block raises): the flag gets its previous value and the
    cache is reset once more, so the next compile re-reads the restored configuration.
    """
    import jax
    from jax.experimental.compilation_cache import compilation_cache as cc

    previous = jax.config.jax_enable_compilation_cache
    jax.config.update("jax_enable_compilation_cache", False)
    cc.reset_cache()
    try:
        yield
    finally:
        jax.config.update("jax_enable_compilation_cache", previous)
        cc.reset_cache()


def time_once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds for one blocked call of ``fn()``, and its output."""
    t0 = time.perf_counter()
    out = block(fn())
    return time.perf_counter() - t0, out


def measure(
    fn: Callable[[], Any],
    *,
    budget_s: float = 1.0,
    min_samples: int = 5,
    max_samples: int = 10_000,
    warmup: int = 1,
) -> Timing:
    """Steady-state per-call time of ``fn()``: warm up, then sample until the budget is spent."""
    for _ in range(warmup):
        block(fn())
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < max_samples and (len(samples) < min_samples or time.perf_counter() - start < budget_s):
        samples.append(time_once(fn)[0])
    return Timing(samples)
