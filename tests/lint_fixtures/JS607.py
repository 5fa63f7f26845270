from collections.abc import Callable

import equinox as eqx
import jax
import numpy as np
from jaxtyping import Array, Float
from flax import struct


@jax.tree_util.register_pytree_node_class
class Grid:
    def __init__(self, values, edges):
        self.values = values
        self.edges = edges

    def tree_flatten(self):
        return (self.values,), (self.edges,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], *aux)


@jax.tree_util.register_pytree_node_class
class Binned:
    def __init__(self, values, n):
        self.values = values
        self.bins = np.linspace(0.0, 1.0, n)  # JS607

    def tree_flatten(self):
        return (self.values,), (self.bins,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        out = object.__new__(cls)
        out.values, out.bins = children[0], aux[0]
        return out


@struct.dataclass
class State:
    x: jax.Array
    table: np.ndarray = struct.field(pytree_node=False)  # JS607


class Layer(eqx.Module):
    w: jax.Array
    grid: np.ndarray = eqx.field(static=True)  # JS607


def make(x):
    edges = np.linspace(0.0, 1.0, 5)
    a = Grid(x, edges)  # JS607
    b = Binned(x, 4)
    c = State(x, table=np.arange(4.0))  # reported at the declaration
    d = Layer(x, np.arange(4.0))  # reported at the declaration
    ok1 = Grid(x, tuple(edges))  # hashable metadata
    ok2 = Grid(np.arange(3.0), 4)  # the array is a child (a leaf)
    ok3 = State(np.arange(4.0), table=(1, 2))
    return a, b, c, d, ok1, ok2, ok3


class Solver(eqx.Module):
    step: Callable[[jax.Array], jax.Array] = eqx.field(static=True)  # a function: hashable
    scale: jax.Array | None = eqx.field(static=True, default=None)  # may hold None: not an array by type alone
    n: int = eqx.field(static=True, default=3)
    w: jax.Array = eqx.field(default=None)  # a child (a leaf)


class Tabulated(eqx.Module):
    values: jax.Array
    grid: Float[Array, "n"] = eqx.field(static=True)  # JS607
