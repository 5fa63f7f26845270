from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def relu(x):
    if x > 0:  # JS101
        return x
    return 0.0


@jax.jit
def countdown(x):
    while x.sum() > 0:  # JS101
        x = x - 1
    return x


@jax.jit
def pick(x, y):
    z = x * 2 + jnp.sin(y)
    return x if z.mean() > 0 else y  # JS101


@jax.jit
def checked(x):
    assert jnp.all(x >= 0)  # JS101
    return jnp.sqrt(x)


def scan_body(carry, x):
    if carry > x:  # JS101
        carry = x
    return carry, carry


def running_min(xs):
    return lax.scan(scan_body, xs[0], xs)


@partial(jax.jit, static_argnums=-1)
def negative_static(x, n):
    if n > 2:  # static via a negative index: fine
        return x * n
    return x


# ---- negatives: correct code that looks alike ----

@jax.jit
def relu_ok(x):
    return jnp.where(x > 0, x, 0.0)


@partial(jax.jit, static_argnames=("training",))
def dropout(x, training):
    if training:
        return x * 0.5
    return x


@partial(jax.jit, static_argnums=(1,))
def power(x, n):
    if n == 0:
        return jnp.ones_like(x)
    return x ** n


@jax.jit
def shape_branch(x):
    if x.shape[0] > 3 and x.ndim == 1:
        return x[:3]
    if len(x) == 2:
        return x
    if x.dtype == jnp.float32:
        return x
    return x


@jax.jit
def optional_arg(x, mask=None, training=False):
    if mask is not None:
        x = x * mask
    if training:
        x = x * 2
    return x


def not_jitted(x):
    if x > 0:
        return x
    return -x


@jax.jit
def cond_ok(x):
    return lax.cond(x.sum() > 0, lambda v: v, lambda v: -v, x)


def test_scalar_reference():
    def reference(label, logit):
        if label * logit > 0:  # a different `reference` is vmapped below: scopes are kept apart
            return 1.0
        return 0.0

    return reference(1, 2.0)


def test_batched():
    def reference(label, logit):
        return jnp.where(label * logit > 0, 1.0, 0.0)

    return jax.vmap(reference)(jnp.ones(3), jnp.ones(3))


@jax.jit
def accumulate(x, is_last):
    def _accum(last_tile, v):
        if last_tile:  # bound by partial below: a Python bool, not traced
            return v * 2
        return v

    return lax.cond(is_last, partial(_accum, True), partial(_accum, False), x)


STATIC = (1,)


@partial(jax.jit, static_argnums=STATIC)
def static_from_constant(x, n):
    if n > 2:  # static_argnums resolved through a module-level constant
        return x * n
    if x.sum() > 0:  # JS101
        return x
    return -x


def make(static_positions):
    @partial(jax.jit, static_argnums=static_positions)
    def f(x, n):
        if n > 2:  # static_argnums known only at run time: no guess, not flagged
            return x
        return x

    return f
