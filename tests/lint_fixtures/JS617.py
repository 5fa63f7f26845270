"""JS617 fixture: keys consumed twice, and look-alikes that split or rebind (each run under JAX's own key-reuse
checker by tests/test_lint_key_reuse.py)."""

import jax
import jax.numpy as jnp


def meta_step(rng):
    rng, _rng1, _rng2 = jax.random.split(rng, num=3)
    ruleset_rng = jax.random.split(rng, num=4)
    reset_rng = jax.random.split(rng, num=4)  # JS617
    return ruleset_rng, reset_rng, rng


def init_and_noise(key):
    keys = jax.random.split(key, 2)
    noise = jax.random.normal(key, (3,))  # JS617
    return keys, noise


def both_branches(key, flag):
    if flag:
        a = jax.random.normal(key, (2,))
    else:
        a = jax.random.uniform(key, (2,))
    return a + jax.random.normal(key, (2,))  # JS617


def per_item(key, xs):
    out = []
    for x in xs:
        out.append(x + jax.random.normal(key, ()))  # JS617
    return out


@jax.jit
def jitted(key):
    a = jax.random.bernoulli(key, 0.5, (3,))
    b = jax.random.bernoulli(key, 0.5, (3,))  # JS617
    return a, b


# look-alikes: lint stays quiet

def meta_step_ok(rng):
    rng, _rng1, _rng2 = jax.random.split(rng, num=3)
    return jax.random.split(_rng1, num=4), jax.random.split(_rng2, num=4), rng


def carried(key, xs):
    out = []
    for x in xs:
        key, sub = jax.random.split(key)
        out.append(x + jax.random.normal(sub, ()))
    return out


def folded(key, xs):
    return [x + jax.random.normal(jax.random.fold_in(key, i), ()) for i, x in enumerate(xs)]


def one_branch(key, flag):
    if flag:
        return jax.random.normal(key, (2,))
    return jax.random.uniform(key, (2,))


def halves(key):
    return jax.random.split(key)[0], jax.random.split(key)[1]


def rebound_in_branch(key, flag):
    a = jax.random.normal(key, (2,))
    if flag:
        key = jax.random.fold_in(key, 1)
    return a, jax.random.key_data(key)


def first_fit(key, shapes):
    """The consumer runs under an `if` that returns: at most once."""
    for s in shapes:
        if s[0] > 2:
            return jax.random.normal(key, s)
    return None


def init_once(key, n):
    """Under an `if` in the loop: here once, in general once or never; not claimed."""
    out = []
    for i in range(n):
        if i == 0:
            out.append(jax.random.normal(key, (3,)))
        else:
            out.append(jnp.zeros(3))
    return out


def retry(key):
    """An unconditional `break`: the body runs once."""
    while True:
        x = jax.random.normal(key, (3,))
        break
    return x


def per_comprehension(key1, key2):
    """`k` is a different variable in each comprehension, and a new key each element."""
    return [jax.random.normal(k, (2,)) for k in jax.random.split(key1)] + [
        jax.random.uniform(k, (2,)) for k in jax.random.split(key2)]


def dtype_then_draw(key):
    return jax.random.key_dtype("rbg"), jax.random.normal(key, ())


CASES = [(meta_step, (), True), (init_and_noise, (), True), (both_branches, (True,), True),
         (per_item, ([1.0, 2.0],), True), (jitted, (), True), (meta_step_ok, (), False),
         (carried, ([1.0, 2.0],), False), (folded, ([1.0, 2.0],), False), (one_branch, (True,), False),
         (rebound_in_branch, (True,), False), (first_fit, ([(3, 2), (4, 1)],), False),
         (init_once, (3,), False), (retry, (), False), (dtype_then_draw, (), False)]
HALVES = halves
ZEROS = jnp.zeros(())


def shuffle_aligned(key, x, y):
    """One permutation for inputs and labels: the shared key is deliberate (JAX's checker still calls it a reuse,
    so this one runs outside CASES)."""
    return jax.random.permutation(key, x), jax.random.permutation(key, y)
