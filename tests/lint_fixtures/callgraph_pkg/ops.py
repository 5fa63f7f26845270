import jax.numpy as jnp
from jax import lax


def clip(x, limit):
    if x.sum() > limit:  # JS101: traced because `step` (train.py) calls it with a traced x
        return x / x.sum()
    return x


def scale(x, factor):
    if factor > 1:  # `factor` is the caller's Python int: fine under jit
        return x * factor
    return x


def untouched(x):
    if x.sum() > 0:  # never called from traced code
        return x
    return -x


class Solver:
    def run(self, x):
        return lax.fori_loop(0, 3, lambda i, v: self.update(v), x)

    def update(self, v):
        return self.damp(v) * 0.5

    def damp(self, v):
        if v.max() > 10.0:  # JS101: traced because `update` calls it
            return v / 10.0
        return v
