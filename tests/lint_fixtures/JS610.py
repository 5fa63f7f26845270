"""JS610 donated-buffer-reused; run under real jax in tests/test_lint_donation.py."""
from functools import partial

import jax
import jax.numpy as jnp


def update(p, g):
    return p - 0.1 * g


step = jax.jit(update, donate_argnums=0)


@partial(jax.jit, donate_argnames="p")
def named_step(p, g):
    return p * 2.0 + g


def read_after(params, grads):
    new = step(params, grads)
    return new, jnp.sum(params)  # JS610


def read_after_named(params, grads):
    new = named_step(g=grads, p=params)
    return new + params  # JS610


def loop(params, grads):
    out = params
    for _ in range(3):
        out = step(params, grads)  # JS610
    return out


class Stats:
    def __init__(self):
        self.scaled = jax.jit(update, donate_argnums=(0,))  # JS610

    def run(self, params, grads):
        new = self.scaled(params, grads)
        print(new.shape)
        return {}


# look-alikes: the intended use, and reads that do not touch the buffer
def rebind(params, grads):
    params = step(params, grads)
    return params, jnp.sum(params)


def loop_rebinds(params, grads):
    for _ in range(3):
        params = step(params, grads)
    return params


def metadata_only(params, grads):
    new = step(params, grads)
    return new, params.shape, params is None, isinstance(params, jax.Array)


def rebound_before_read(params, grads):
    new = step(params, grads)
    params = new * 1.0
    return jnp.sum(params)


def gives_back(params, grads):
    new = step(params, grads)
    return new


def not_donated(params, grads):
    new = step(grads, params)
    return new, jnp.sum(params)
