"""JS404: a traced value stored on `self` of a plain object inside traced code outlives the trace.

The flagged program is run under real jax.jit: the object keeps a tracer (reading it later raises
UnexpectedTracerError) and a second call, served from jit's cache, does not update it. Look-alikes not
flagged: constructors, Python values, an nnx-style module class from a library, a local object.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope

SRC = '''\
import jax
import jax.numpy as jnp
from flax import nnx


class Model:
    def __init__(self, w):
        self.w = w
        self.cache = {}
        self.calls = 0

    def loss(self, x):
        y = x * self.w
        self.last = y
        self.cache["y"] = y
        self.cache.update({"x": x})
        self.calls += 1
        self.name = "loss"
        return y.sum()


class Counter(nnx.Module):
    def __call__(self, x):
        self.seen = x
        return x


class Box:
    def __init__(self, v):
        self.v = v * 2


def run(model, x):
    loss = jax.jit(model.loss)(x)
    return loss + jax.jit(lambda v: Box(v).v)(x).sum()
'''


def test_js404_flags_traced_values_stored_on_self(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS404"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(14, "warning"), (15, "warning"), (16, "warning")], got
    assert "`self.last = ...` stores a traced value on `self` inside traced method `loss`" in result.findings[0].message


def test_a_traced_value_on_self_outlives_the_trace():
    class Model:
        def loss(self, x):
            self.last = x * 2
            return self.last.sum()

    m = Model()
    f = jax.jit(m.loss)
    f(jnp.ones(2))
    assert isinstance(m.last, jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jnp.add(m.last, 1)
    leaked = m.last
    f(jnp.ones(2) * 3)  # served from the cache: the method does not run again
    assert m.last is leaked
