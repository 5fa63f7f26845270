"""A branch that returns or raises ends its bindings with it (lint/branches.py), and a NumPy array that reaches an
item assignment on some path makes JS601 a warning, not an error. Each case runs under real JAX: the NumPy paths
assign in place fine, the JAX array fails."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.lint import lint_source

SRC = '''
import jax
import jax.numpy as jnp
import numpy as np


def returns_early(n, use_jax):
    out = np.zeros(n)
    if use_jax:
        out = jnp.asarray(out)
        return out * 2
    out[0] = 1.0
    return out


def raises_in_else(n, use_jax):
    out = np.zeros(n)
    if not use_jax:
        pass
    else:
        out = jnp.asarray(out)
        raise ValueError("jax path is not supported")
    out[0] = 1.0
    return out


def nested_exit(n, mode):
    out = np.zeros(n)
    if mode:
        out = jnp.asarray(out)
        if mode == 1:
            return out
        else:
            raise ValueError(mode)
    out[0] = 1.0
    return out


def one_path_jax(n, use_jax):
    out = np.zeros(n)
    if use_jax:
        out = jnp.asarray(out)
    out[0] = 1.0  # JS601 warning: NumPy on one path, JAX on the other
    return out


def falls_through(n):
    out = np.zeros(n)
    if n > 1:
        out = jnp.asarray(out)
    else:
        out = jnp.ones(n)
    out[0] = 1.0  # JS601 error: every path reaching here binds a JAX array
    return out


@jax.jit
def traced(x):
    y = jnp.sin(x)
    if x.ndim == 3:
        y = y.reshape(-1)
        return y
    y[0] = 1.0  # JS601 error: still the jnp array
    return y
'''


def _marked():
    return {i: line.split("# JS601 ")[1].split(":")[0]
            for i, line in enumerate(SRC.splitlines(), 1) if "# JS601 " in line}


def test_exiting_branches_do_not_reach():
    got = {f.location.line: f.severity for f in lint_source(SRC, "m.py", select=["JS601"])}
    assert got == _marked(), got


def test_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    for name in ("returns_early", "raises_in_else", "nested_exit", "one_path_jax"):
        assert ns[name](3, False)[0] == 1.0  # the NumPy path assigns in place
    assert ns["returns_early"](3, True).shape == (3,)
    with pytest.raises(TypeError, match="immutable"):
        ns["one_path_jax"](3, True)
    with pytest.raises(TypeError, match="immutable"):
        ns["falls_through"](3)
    with pytest.raises(TypeError, match="immutable"):
        ns["traced"](jnp.ones(3))
    assert isinstance(np.zeros(1), np.ndarray) and jax.numpy is jnp


IF_NO_ELSE = '''
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("n", "flag"))
def maybe_array(x, n, flag):
    if flag:
        n = jnp.asarray(n)
    if n > 0:  # JS101 warning: static `n` when flag is False, a tracer when True
        return x + 1
    return x


@partial(jax.jit, static_argnames=("n", "flag"))
def maybe_sum(x, n, flag):
    if flag:
        n = x.sum()
    y = int(n)  # JS103 warning: the same join, another rule and shape
    return x + y


@partial(jax.jit, static_argnames=("flag",))
def both_paths(x, flag):
    n = x.sum()
    if flag:
        n = n * 2
    if n > 0:  # JS101 error: a tracer before the `if` and after its body
        return x + 1
    return x
'''


def test_if_without_else_joins_with_the_state_before_it():
    """An ``if`` with no ``else`` has an empty second path: a tracer its body binds is one only on some path."""
    marked = {i: (line.split("# ")[1].split(":")[0].split()[0], line.split("# ")[1].split(":")[0].split()[1])
              for i, line in enumerate(IF_NO_ELSE.splitlines(), 1) if "# JS10" in line}
    got = {f.location.line: (f.code, f.severity) for f in lint_source(IF_NO_ELSE, "m.py", select=["JS101", "JS103"])}
    assert got == marked, got


def test_if_without_else_under_real_jax():
    ns: dict = {}
    exec(compile(IF_NO_ELSE, "m.py", "exec"), ns)
    x = jnp.ones(3)
    assert float(ns["maybe_array"](x, 1, False)[0]) == 2.0  # the static path runs
    assert float(ns["maybe_sum"](x, 2, False)[0]) == 3.0
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["maybe_array"](x, 1, True)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        ns["maybe_sum"](x, 2, True)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["both_paths"](x, False)
