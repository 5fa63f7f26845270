"""A Flax `compact` `__call__` whose first input is annotated `Shape` (a tuple of Python ints) gets a shape, not
data: `jnp.zeros(shape=shape)` works under real `jax.jit` of `apply`, and lint stays quiet (lint/params.py). An
unannotated first input is data by the convention: used as a size it fails under jit with an array, and lint
says so as info (the convention is a guess: no jit of it is seen; facts.judge)."""

from __future__ import annotations

import textwrap

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

pytest.importorskip("flax")

SRC = textwrap.dedent("""
    from typing import Tuple

    import flax.linen as nn
    import jax.numpy as jnp

    Shape = Tuple[int, ...]


    class Zeros(nn.Module):
        @nn.compact
        def __call__(self, shape: Shape):
            return jnp.zeros(shape=shape)


    class SizedZeros(nn.Module):
        @nn.compact
        def __call__(self, n):
            return jnp.zeros(n)


    class Net(nn.Module):
        @nn.compact
        def __call__(self, x):
            return x + Zeros()(x.shape)
""")


def _module():
    ns: dict = {}
    exec(compile(SRC, "flax_call.py", "exec"), ns)
    return ns


def test_a_shape_annotated_input_is_a_python_shape_under_jit_and_lint_is_quiet():
    ns = _module()
    net = ns["Net"]()
    assert jax.jit(net.apply)({}, jnp.ones(3)).shape == (3,)
    with pytest.raises(TypeError):  # "Shapes must be 1D sequences of concrete values"
        jax.jit(ns["SizedZeros"]().apply)({}, jnp.int32(3))
    found = lint_source(SRC, "flax_call.py")
    # The unannotated input is data only by the convention (no jit of it seen): said, as info, with the guess named.
    assert [(f.code, f.location.line, f.severity) for f in found] == [("JS303", 19, "info")], found
    assert "traced only by convention" in found[0].message
