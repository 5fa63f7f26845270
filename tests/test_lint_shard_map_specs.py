"""shard_map passes an argument whose in-spec is None through as the caller passed it (jaxmodel ``specs_option``):
a Python flag there is no tracer, under jit too, so `if flag`/`flag and ...` on it is not JS101/JS102. An entry
`P()` still makes it a traced value under jit (reported). Each case runs under real JAX."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
import functools

import jax
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map

MESH = Mesh(np.array(jax.devices()[:1]), ("i",))


@jax.jit
def outer(x):
    return passed(x, True) + positional(x, True)


@functools.partial(shard_map, mesh=MESH, in_specs=(P(), None), out_specs=P())
def passed(x, flag):
    if flag and x.ndim == 1:
        return x * 2
    return x


def _positional(x, flag):
    if flag:
        return x * 2
    return x


positional = shard_map(_positional, mesh=MESH, in_specs=(P(), None), out_specs=P())


def _scaled(x, n):
    if n > 2:
        return x * n
    return x


@jax.jit
def built_inside(x):
    return shard_map(_scaled, mesh=MESH, in_specs=(P(), None), out_specs=P())(x, 3)


@jax.jit
@functools.partial(shard_map, mesh=MESH, in_specs=(P(), P()), out_specs=P())
def replicated(x, flag):
    if flag:  # JS101
        return x * 2
    return x
'''


def test_none_in_spec_is_the_callers_value():
    got = {f.location.line: f.code for f in lint_source(SRC, "m.py") if f.code in ("JS101", "JS102")}
    want = {i: line.split("# ")[1] for i, line in enumerate(SRC.splitlines(), 1) if line.endswith("# JS101")}
    assert got == want, got


def test_under_real_jit():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    assert float(ns["outer"](jnp.ones(2))[0]) == 4.0
    assert float(ns["built_inside"](jnp.ones(2))[0]) == 3.0
    with pytest.raises((jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError)):
        ns["replicated"](jnp.ones(2), True)


JITTED = '''
import jax
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map

MESH = Mesh(np.array(jax.devices()[:1]), ("i",))


def body(x, flag):
    if flag:  # JS101
        return x * 2
    return x


jitted = jax.jit(shard_map(body, mesh=MESH, in_specs=(P(), None), out_specs=P()))
'''


def test_none_in_spec_under_a_direct_jit_is_jits_tracer():
    """`jax.jit(shard_map(f, in_specs=(P(), None)))`: the None entry passes jit's tracer through: still reported."""
    got = {f.location.line for f in lint_source(JITTED, "m.py") if f.code == "JS101"}
    assert got == {i for i, line in enumerate(JITTED.splitlines(), 1) if line.endswith("# JS101")}, got
    ns: dict = {}
    exec(compile(JITTED, "m.py", "exec"), ns)
    with pytest.raises((jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError)):
        ns["jitted"](jnp.ones(2), True)
