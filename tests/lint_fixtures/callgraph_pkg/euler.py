import jax.numpy as jnp

from .base import Integrator


class Euler(Integrator):
    def body(self, y):
        if y.max() > 5.0:  # JS101: the base class hands `self.body` to lax.while_loop
            return y + 0.5
        return y + 1.0


class Heun(Integrator):
    def body(self, y):
        return jnp.where(y.max() > 5.0, y + 0.5, y + 1.0)
