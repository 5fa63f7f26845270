"""JS208: a static argument fed a value that changes on every iteration of a loop (a compile per iteration).

The flagged program is run under real jax.jit and its compiles counted (one per iteration); the look-alikes
that take few values (`t % 2`, `min(t, 3)`, a constant, a list of two settings) are not flagged.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

import jitscope

SRC = '''\
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="t")
def step(x, t):
    return x * t


def scaled(x, k):
    return x * k


scaled_jit = jax.jit(scaled, static_argnums=1)


class Trainer:
    def __init__(self):
        self.alpha = 1.0
        self.update = jax.jit(self._update, static_argnums=1)

    def _update(self, x, alpha):
        return x * alpha

    def fit(self, x):
        for _ in range(3):
            x = self.update(x, self.alpha)
            self.alpha = self.alpha * 0.5
        return x


def train(x, n):
    for t in range(n):
        x = step(x, t=t)
    for i, batch in enumerate([x, x]):
        x = scaled_jit(batch, i + 1)
    lr = 0.1
    while lr > 0.01:
        x = scaled_jit(x, float(lr))
        lr *= 0.5
    return x


def fine(x, n):
    for t in range(n):
        x = step(x, t=t % 2)
        x = step(x, t=min(t, 3))
        x = step(x, t=2)
        x = scaled(x, t)
    for k in [1, 2]:
        x = scaled_jit(x, k)
    k = 3
    for _ in range(n):
        x = scaled_jit(x, k)
        k = 3
    return x
'''


def test_js208_flags_static_arguments_that_change_per_iteration(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(29, "warning"), (36, "warning"), (38, "warning"), (41, "warning")], got
    assert "static argument `t` of `step` gets `t`, which changes on every iteration of the loop at line 35" \
        in result.findings[1].message
    assert "`self.update`" in result.findings[0].message


def test_a_changing_static_argument_compiles_once_per_iteration():
    traces = []

    @functools.partial(jax.jit, static_argnames="t")
    def step(x, t):
        traces.append(t)
        return x * t

    x = jnp.ones(2)
    for t in range(5):
        x = step(x, t=t)
    assert len(traces) == 5  # a trace (and compile) per iteration
    traces.clear()
    for t in range(5):
        x = step(x, t=t % 2)
    assert len(traces) == 0  # 0 and 1 were compiled above: the cache hits
