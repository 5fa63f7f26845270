"""compare never prefers one of two identical programs, idle or with every core busy (issue #26 item 4).

Real ``jax.jit`` and eager JAX on the CPU, real busy-loop processes for the load. A 100x difference
must still be told apart under the same load, so a verdict that always says "within noise" fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager

import jax
import jax.numpy as jnp
import pytest

import jitscope

FAST = {"sample_seconds": 0.1, "min_samples": 10, "phases": False}


def f_a(x):
    return jnp.tanh(x) * 2.0 + jnp.sin(x)


def f_b(x):  # the same code under another name
    return jnp.tanh(x) * 2.0 + jnp.sin(x)


def many_ops(x):  # 150 eager dispatches; one small fused program under jit
    for _ in range(50):
        x = jnp.sin(x) * 0.5 + 0.1
    return x


@contextmanager
def busy_cores():
    """Saturate every core with a busy loop for the duration of the block."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.mark.parametrize("loaded", [False, True], ids=["idle", "cores-busy"])
def test_identical_functions_are_within_noise(loaded):
    x = jnp.ones(1000)
    with busy_cores() if loaded else _nothing():
        # per call (steady rounds paired) and for one call (the cold first calls alone)
        r = jitscope.compare({"a": f_a, "b": f_b}, (x,), **FAST)
        assert r.recommendation.within_noise and "within noise" in r.recommendation.text, r.recommendation.text
        assert r.variant("b").speedup_within_noise, r.variant("b")
        jitted = {"ja": jax.jit(f_a), "jb": jax.jit(f_b)}
        for calls in (1, None, 100):  # None: per call, the case a busy machine once told apart (issue #26.4)
            jr = jitscope.compare(jitted, (x,), calls=calls, **FAST)
            assert jr.recommendation.within_noise, (calls, jr.recommendation.text)


def test_a_large_difference_is_still_told_apart_under_load():
    x = jnp.ones(64)
    with busy_cores():
        r = jitscope.compare({"eager": many_ops, "jit": jax.jit(many_ops)}, (x,), **FAST)
    rec = r.recommendation
    assert rec.best == "jit" and not rec.within_noise, rec.text
    assert r.variant("jit").speedup_within_noise is False
    assert len(r.variant("jit").steady_rounds) == 10 and len(r.variant("eager").first_call.samples) >= 2


@contextmanager
def _nothing():
    yield
