"""JW602 (a key that is a constant of a traced program) under `jitscope watch -m pytest`: what a key in a loop is.

Held-out classes (issue #24, suites6 re-score, classes only): JW602 on a key rebuilt per step from the loop index
(`key(i)` in a Python loop the trace unrolls, `fold_in(key, i)` in a `lax` loop) was not true: every step draws
from a different key. Possible miss: a key carried through a `lax.scan` and never split draws the same numbers at
every step. Each test below checks what real JAX computes; watch must agree (findings only where it says so).
"""

from __future__ import annotations

from conftest import watch_pytest

SUITE = '''
import jax
import jax.numpy as jnp

KEY = jax.random.key(42)


@jax.jit
def unrolled(x):
    rows = []
    for i in range(3):
        rows.append(jax.random.normal(jax.random.key(i), x.shape))        # a new key per unrolled step
    return jnp.stack(rows)


@jax.jit
def folded(x):
    def body(i, acc):
        return acc.at[i].set(jax.random.normal(jax.random.fold_in(KEY, i), x.shape))   # a key per iteration
    return jax.lax.fori_loop(0, 3, body, jnp.zeros((3,) + x.shape))


@jax.jit
def scanned(x):
    def body(c, i):
        return c, jax.random.normal(jax.random.fold_in(KEY, i), x.shape)  # a key per scanned index
    return jax.lax.scan(body, 0.0, jnp.arange(3))[1]


@jax.jit
def carried_unsplit(key, x):
    def body(k, _):
        return k, jax.random.normal(k, x.shape)                           # JW602: the same key every step
    return jax.lax.scan(body, key, None, length=3)[1]


@jax.jit
def carried_split(key, x):
    def body(k, _):
        k, sub = jax.random.split(k)
        return k, jax.random.normal(sub, x.shape)                         # a new key every step
    return jax.lax.scan(body, key, None, length=3)[1]


@jax.jit
def captured(x):
    return jax.random.normal(KEY, x.shape)                                # JW602: every call the same numbers


def distinct_rows(rows):
    return not any(jnp.array_equal(rows[a], rows[b]) for a in range(3) for b in range(a + 1, 3))


def test_per_step_keys_draw_new_numbers_each_step():
    x = jnp.zeros(4)
    for f in (unrolled, folded, scanned):
        assert distinct_rows(f(x))
    assert distinct_rows(carried_split(jax.random.key(1), x))


def test_a_key_carried_unsplit_draws_the_same_numbers_each_step():
    rows = carried_unsplit(jax.random.key(1), jnp.zeros(4))
    assert jnp.array_equal(rows[0], rows[1]) and jnp.array_equal(rows[1], rows[2])


def test_a_captured_key_draws_the_same_numbers_each_call():
    assert jnp.array_equal(captured(jnp.zeros(4)), captured(jnp.ones(4)))
'''


def test_keys_per_step_are_quiet_and_a_key_unchanged_across_steps_is_reported(tmp_path):
    data = watch_pytest(tmp_path, {"test_keys.py": SUITE}, "test_keys.py")
    found = sorted((f["function"], f["details"]["origin"]) for f in data["findings"] if f["code"] == "JW602")
    assert found == [("captured", "captured"), ("carried_unsplit", "loop-invariant")], found
    (inv,) = [f for f in data["findings"] if f["code"] == "JW602" and f["function"] == "carried_unsplit"]
    assert "every iteration draws the same numbers" in inv["message"]
    assert inv["location"]["line"] == SUITE.splitlines().index(
        "        return k, jax.random.normal(k, x.shape)                           # JW602: the same key every step") + 1
