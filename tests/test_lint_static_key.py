"""JS602: a PRNG key (raw or typed) passed for a static argument is an unhashable array, like jnp.array.

Checked under real jax.jit: both kinds of key raise at the call; lint says so at the call and through a
name bound to the key.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest

import jitscope

SRC = '''\
from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def sample(x, key):
    return x + jax.random.normal(key, x.shape)


def run(x):
    key = jax.random.PRNGKey(0)
    a = sample(x, key)
    b = sample(x, jax.random.key(1))
    k1, k2 = jax.random.split(key)
    return a + b + sample(x, k1)
'''


def test_prng_key_as_static_argument_raises_under_jit():
    @functools.partial(jax.jit, static_argnums=1)
    def sample(x, key):
        return x + jax.random.normal(key, x.shape)

    for key in (jax.random.PRNGKey(0), jax.random.key(1)):
        with pytest.raises((ValueError, TypeError)):
            sample(jnp.ones(2), key)


def test_js602_flags_a_prng_key_passed_static(tmp_path):
    path = tmp_path / "keys.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS602"])
    got = [(f.location.line, f.severity) for f in result.findings]
    # 6: the declared static position, where the fix goes (once); `k1` of a tuple unpacking: its value is not followed
    assert got == [(6, "error"), (13, "error"), (14, "error")], got
    assert "a JAX array" in result.findings[1].message
