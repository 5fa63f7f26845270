# Unhashable static arguments through data flow: names, module-level values, attributes, arrays.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

AXES = [0, 1]
TUPLE_AXES = (0, 1)


# the declared static position below is flagged too: an array is passed for it at line 28, and the fix goes there
@partial(jax.jit, static_argnames="axes")  # JS602
def total(x, axes):
    return x.sum(axis=axes)


def local_list(x):
    axes = [0, 1]
    return total(x, axes)  # JS602


def module_list(x):
    return total(x, axes=AXES)  # JS602


def numpy_axes(x):
    return total(x, np.array([0]))  # JS602


def one_way_a_list(x, flag):
    axes = (0, 1)
    if flag:
        axes = [0, 1]
    return total(x, axes)  # JS602


def tuples_ok(x):
    axes = (0, 1)
    return total(x, axes) + total(x, TUPLE_AXES)


class Reducer:
    def __init__(self):
        self.dims = [0]
        self.ok_dims = (0,)
        self.step = jax.jit(self._step, static_argnums=(1,))

    def _step(self, x, dims):
        return x.sum(axis=dims)

    @partial(jax.jit, static_argnums=(0, 2))
    def apply(self, x, dims):
        return x.sum(axis=dims)

    def bound_jit(self, x):
        return self.step(x, self.dims)  # JS602

    def decorated(self, x):
        return self.apply(x, self.dims)  # JS602

    def fine(self, x):
        return self.step(x, self.ok_dims) + self.apply(x, self.ok_dims)


def inline_jit(x):
    return jax.jit(lambda_free, static_argnums=1)(x, [0])  # JS602


def lambda_free(x, dims):
    return x.sum(axis=dims)


def unknown_static(x, names):
    return jax.jit(lambda_free, static_argnums=names)(x, [0])  # which are static is known only at run time


def main(x=jnp.ones((2, 3))):
    return local_list(x)


def reducer_bound_jit(x):
    return Reducer().bound_jit(x)


def reducer_decorated(x):
    return Reducer().decorated(x)


def reducer_fine(x):
    return Reducer().fine(x)
