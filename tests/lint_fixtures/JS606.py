import functools as ft

import equinox as eqx
import jax.numpy as jnp
from flax import nnx


def shared(x):
    return x


SHARED_NORM = ft.partial(jnp.linalg.norm, axis=0)


class WeightNorm(eqx.Module):
    axis: int
    activation: object = lambda v: v                     # a class default: one object for all instances

    def __init__(self, axis):
        self.axis = axis
        self._norm = ft.partial(jnp.linalg.norm, axis=axis)   # 21: per instance  # JS606
        self.ok = shared                                 # module-level function: quiet
        self.norm2 = SHARED_NORM                         # built once: quiet

        def inner(v):
            return v
        self.inner = inner                               # 27: per instance  # JS606


class Sub(WeightNorm):
    def __init__(self):
        self.act = lambda v: v                           # 32: a subclass of a Module of the file  # JS606


class Net(nnx.Module):
    def __init__(self):
        self.pool = ft.partial(nnx.avg_pool, window_shape=(2, 2))   # 37: nnx  # JS606


class Plain:
    def __init__(self):
        self.f = lambda v: v                             # not a Module: its instances are no pytree


class State(eqx.Module):
    def method(self):
        self.g = lambda v: v                             # not __init__: quiet
