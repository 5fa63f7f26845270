"""JS101 and enum members: a parameter whose default is a member of a module enum (`method: Combine =
Combine.SUM`) holds a Python value unless a caller passes one (like `training=False`). A parameter annotated with an
enum whose members are not ints cannot be a jit argument unless static (checked below): under `filter_jit`, which
keeps non-arrays static, it is a Python value; under a plain `jit` without `static_argnums` the call fails (still
reported). A Flax module whose `__call__` forwards the enum to a helper that branches on it runs under jit (below).
An `IntEnum` member passed to jit is traced like an int: branching on it still fails (still reported)."""

from __future__ import annotations

import enum

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
import enum

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp


class Combine(enum.IntEnum):
    SUM = 1
    CONCAT = 2


class Mode(enum.Enum):
    FAST = "fast"
    EXACT = "exact"


class Embed(nn.Module):
    def combine(self, parts, method: Combine = Combine.SUM):
        if method == Combine.SUM:
            return parts[0] + parts[1]
        return jnp.concatenate(parts, axis=-1)

    @nn.compact
    def __call__(self, method: Combine = Combine.SUM, *, a, b):
        return self.combine([nn.Dense(2)(a), nn.Dense(2)(b)], method=method)


@jax.jit
def scaled(x, mode: Mode):
    if mode == Mode.FAST:  # JS101: jit refuses a Mode argument (it must be static)
        return x * 2
    return x * 3


@eqx.filter_jit
def filtered(x, mode: Mode):
    if mode == Mode.FAST:  # filter_jit keeps a non-array argument static
        return x * 2
    return x * 3


def pick(x, method):
    if method == Combine.SUM:  # JS101: a traced IntEnum member (passed to jit below)
        return x + 1
    return x


pick_jit = jax.jit(pick)
'''


def test_enum_parameters_are_python_values():
    found = sorted(f.location.line for f in lint_source(SRC, "m.py", select=["JS101"]))
    want = sorted(i for i, line in enumerate(SRC.splitlines(), 1) if "# JS101" in line)
    assert found == want, found


def test_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    model = ns["Embed"]()
    a = b = jnp.ones((1, 3))
    params = model.init(jax.random.key(0), a=a, b=b)
    for method in (ns["Combine"].SUM, ns["Combine"].CONCAT):
        out = jax.jit(lambda p, m=method: model.apply(p, m, a=a, b=b))(params)
        assert out.shape == ((1, 2) if method == ns["Combine"].SUM else (1, 4))
    with pytest.raises(TypeError, match="abstract array"):
        ns["scaled"](jnp.ones(2), ns["Mode"].FAST)  # a plain Enum member cannot be a jit argument
    assert float(ns["filtered"](jnp.ones(2), ns["Mode"].FAST)[0]) == 2.0
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["pick_jit"](1.0, ns["Combine"].SUM)  # an IntEnum member is traced like an int
    assert isinstance(ns["Combine"].SUM, enum.IntEnum)
