"""JS601 and dicts of arrays: item assignment into a dict is how a dict is updated, under jit too. A local is a dict
when the function uses it as one (`new["w"] = ...`, `.items()`, `"k" in new`), when it is a dict merge
(`params | {"a": 1}`), or when it copies (`.copy()`, a method dicts and arrays share) a parameter used as a dict; a
copy of a parameter of unknown kind is no proven array (a warning, no fix). A copy of a jnp array still fails, an
error. Each case runs under real jax.jit."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
import jax
import jax.numpy as jnp

KEY = "k"


@jax.jit
def named(params, x):
    new = params.copy()
    new["w"] = x  # a string key: a dict
    new[KEY] = x * 2
    return new


@jax.jit
def merged(params):
    u = params | {"b": 1.0}
    u[KEY] = 2.0
    return u


@jax.jit
def from_dict_param(params):
    new = params.copy()
    for name, v in params.items():
        new[name] = v * 2
    new[KEY] = 0.0
    return new


@jax.jit
def unknown_copy(params):
    new = params.copy()
    new[KEY] = 0.0  # JS601 warning: params may be an array or a dict
    return new


@jax.jit
def array_copy(x):
    y = jnp.sin(x).copy()
    y[0] = 1.0  # JS601 error: a jnp array
    return y
'''


def _marked():
    out = {}
    for i, line in enumerate(SRC.splitlines(), 1):
        if "# JS601 " in line:
            out[i] = line.split("# JS601 ")[1].split(":")[0]
    return out


def test_dict_locals_are_not_arrays():
    got = {f.location.line: f.severity for f in lint_source(SRC, "m.py", select=["JS601"])}
    assert got == _marked(), got


def test_under_real_jit():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    p = {"a": jnp.ones(2)}
    assert set(ns["named"](p, jnp.ones(2))) == {"a", "w", "k"}
    assert set(ns["merged"](p)) == {"a", "b", "k"}
    assert set(ns["from_dict_param"](p)) == {"a", "k"}
    assert set(ns["unknown_copy"](p)) == {"a", "k"}
    ns["KEY"] = 0
    with pytest.raises(TypeError, match="immutable"):
        ns["unknown_copy"](jnp.ones(3))  # the warning's case: given an array it fails
    with pytest.raises(TypeError, match="immutable"):
        ns["array_copy"](jnp.ones(3))
    assert jax is not None
