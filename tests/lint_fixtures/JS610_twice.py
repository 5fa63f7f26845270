"""JS610: one array passed twice to a call that donates it (run under real jax in tests/test_lint_donation_twice.py)."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def _update(p, g):
    return p - 0.1 * g


step = jax.jit(_update, donate_argnums=0)
both = jax.jit(_update, donate_argnums=(0, 1))


@partial(jax.jit, donate_argnames="p")
def named_step(p, g):
    return p * 2.0 + g


def self_step(params):
    return step(params, params)  # JS610


def self_both(params):
    params = both(params, params)  # JS610
    return params


def self_named(params):
    return named_step(p=params, g=params)  # JS610


# look-alikes: a copy, the undonated position twice is not possible with two arguments, distinct arrays

def copied(params):
    return step(params, jnp.copy(params))


def distinct(params, grads):
    return both(params, grads)


def host_numpy():
    """A NumPy array is copied to the device once per argument: two buffers, donating one is fine."""
    x = np.ones(4, np.float32)
    return step(x, x)


def host_number():
    x = -1.5
    return both(x, x)


def host_then_device():
    x = np.ones(4, np.float32)
    x = jnp.asarray(x)  # a JAX array from here: one buffer
    return step(x, x)  # JS610


FLAGGED = [self_step, self_both, self_named]
HOST = [host_numpy, host_number]
QUIET = [copied]
