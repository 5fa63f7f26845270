import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def unrolled(x):
    n = jnp.asarray(x.shape[0]) // 2
    out = 0.0
    for i in range(n):  # JS304
        out = out + x[i]
    return out


@jax.jit
def head(x):
    k = jnp.sum(jnp.array([1, 2]))
    return x[:k]  # JS304


@jax.jit
def window(x, start):
    return x[start:start + 2]  # JS304


@jax.tree_util.register_pytree_node_class
class Chunks:
    def __init__(self, x, size=2):
        self.x = x
        self.size = size
        self.n = jnp.ceil(x.shape[0] / size).astype(int)  # JS304

    def tree_flatten(self):
        return (self.x,), self.size

    @classmethod
    def tree_unflatten(cls, size, children):
        return cls(*children, size)

    def starts(self):
        n = self.n
        return jnp.arange(n) * self.size


@jax.jit
def chunk_starts(c):
    return c.starts()


def make_chunks(x):
    return chunk_starts(Chunks(x))


# ---- negatives ----

@jax.jit
def unrolled_ok(x):
    n = x.shape[0] // 2
    out = 0.0
    for i in range(n):
        out = out + x[i]
    return out


@jax.jit
def head_ok(x):
    k = int(np.sum(np.array([1, 2])))
    return x[:k] + x[k - 1]


@partial(jax.jit, static_argnames="start")
def window_ok(x, start):
    return x[start:start + 2]


@jax.jit
def window_dynamic(x, start):
    return jax.lax.dynamic_slice(x, (start,), (2,))


@jax.tree_util.register_pytree_node_class
class ChunksOk:
    def __init__(self, x, size=2):
        self.x = x
        self.size = size
        self.n = math.ceil(x.shape[0] / size)
        self.scale = jnp.sqrt(x.shape[0])  # an array field used as an array, never as a count

    def tree_flatten(self):
        return (self.x,), self.size

    @classmethod
    def tree_unflatten(cls, size, children):
        return cls(*children, size)

    def starts(self):
        return jnp.arange(self.n) * self.size * self.scale


@jax.jit
def chunk_starts_ok(c):
    return c.starts()


def make_chunks_ok(x):
    return chunk_starts_ok(ChunksOk(x))


class Rebuilt:
    """Not a pytree: nothing rebuilds it inside a trace, and its count is computed eagerly."""

    def __init__(self, x):
        self.x = x
        self.n = jnp.ceil(x.shape[0] / 2).astype(int)

    def starts(self):
        return jnp.arange(self.n)
