# Item assignment on a flax.nnx.Variable updates its value (the `.at[].set()` fix would drop it).
import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.Variable(jnp.zeros(3))


@nnx.jit
def set_first(var, value):
    var[0] = value  # a Variable argument


@nnx.jit
def fresh(x):
    a = jnp.zeros(3)
    a[1] = x  # JS601
    return a
