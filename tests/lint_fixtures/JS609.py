from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


class Plane:
    def __init__(self, z, normal):
        self.z, self.normal = z, tuple(normal)

    def __hash__(self):
        return hash((self.z, self.normal))

    def __eq__(self, other):
        if not isinstance(other, Plane):
            return False
        return not (not jnp.allclose(self.z, other.z))  # JS609


class HashedPlane(Plane):
    def __hash__(self):
        return hash(jnp.asarray(self.normal).tobytes())  # JS609

    def __eq__(self, other):
        return isinstance(other, Plane) and self.normal == other.normal


class HostPlane(Plane):
    def __hash__(self):
        return hash((self.z, self.normal, jnp.asarray(self.normal).shape))  # shape only: no operation staged

    def __eq__(self, other):
        return isinstance(other, Plane) and bool(np.allclose(self.z, other.z)) and jnp.issubdtype(
            np.asarray(self.normal).dtype, jnp.floating)


class Field:
    """An array-like class: its `==` is elementwise on purpose, and it is not hashable."""

    def __init__(self, values):
        self.values = values

    def __eq__(self, other):
        return jnp.equal(self.values, other.values)


@partial(jax.jit, static_argnums=1)
def height(x, plane):
    return x * plane.z


@partial(jax.jit, static_argnums=1)
def twice(x, cls):
    return height(x, cls(2.0, (0.0, 1.0))) + height(x, cls(2.0, (0.0, 1.0)))


def run(cls, x=1.0):
    height(x, cls(2.0, (0.0, 1.0)))
    height(x, cls(2.0, (0.0, 1.0)))  # outside any trace: jit's lookup compares concrete values
    return twice(x, cls)  # inside a trace: the inner jit's lookup runs under the trace
