import dataclasses
import functools

import jax
import jax.numpy as jnp
from flax import linen as nn


class Base(nn.Module):
    n: int = 3


class Model(Base):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.n)(x) + self.init_cache(b=1)

    @functools.partial(jax.jit, static_argnames=("self", "b"))  # JS604
    def init_cache(self, *, b: int):
        return jnp.zeros((b, self.n))


@dataclasses.dataclass
class Plain:
    n: int = 3

    @functools.partial(jax.jit, static_argnums=0)  # JS604
    def run(self, x):
        return x * self.n


@dataclasses.dataclass(frozen=True)
class Frozen:
    n: int = 3

    @functools.partial(jax.jit, static_argnums=0)
    def run(self, x):
        return x * self.n


class Lifted(nn.Module):
    n: int = 3

    @functools.partial(nn.jit, static_argnames=("self", "b"))  # flax's lifted jit: the fix, not flagged
    def init_cache(self, *, b: int):
        return jnp.zeros((b, self.n))
