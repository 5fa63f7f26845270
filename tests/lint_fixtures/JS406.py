import functools

import jax
import jax.numpy as jnp
import numpy as np


@functools.lru_cache(maxsize=None)
def table(n):
    return jnp.arange(n) ** 2


@functools.cache
def np_table(n):
    return np.arange(n) ** 2


@functools.cache
def eval_table(n):
    with jax.ensure_compile_time_eval():
        return jnp.arange(n) ** 2


@functools.lru_cache
def doubled(x):
    return jnp.asarray(x) * 2


@jax.jit
def shifted(x):
    return x + table(3)  # JS406


@jax.jit
def shifted_np(x):
    return x + np_table(3) + eval_table(3)


@jax.jit
def twice(x):
    return doubled(x)


class Scale:
    def __init__(self, s):
        self.s = jnp.asarray(s)
        self.n = 0

    @functools.cached_property
    def inv(self):
        return jnp.reciprocal(self.s)

    @functools.cached_property
    def size(self):
        return int(np.size(self.s))

    def apply(self, x):
        return x * self.inv  # JS406

    def apply_sized(self, x):
        return x * self.size


class Built:
    @functools.cached_property
    def inv(self):
        return 1.0 / jnp.asarray(2.0)

    def scaled(self, x):
        return x * self.inv


def run(x):
    s = Scale(2.0)
    return jax.jit(s.apply)(x), jax.jit(s.apply_sized)(x), shifted(x), shifted_np(x)


def rebuilt(x):
    return jax.jit(lambda y: Built().scaled(y))(x)
