"""Timing primitives: block until results are ready, repeat to a budget, report medians.

Every steady-state number in jitscope comes from ``measure``: it warms up, then
repeats until both ``min_samples`` and ``budget_s`` are met (or ``max_samples``),
blocking on every output leaf so asynchronous dispatch never hides work.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..model import Timing


def block(value: Any) -> Any:
    """Block until every array in ``value`` (any pytree) is computed; return it."""
    import jax

    for leaf in jax.tree_util.tree_leaves(value):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return value


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
