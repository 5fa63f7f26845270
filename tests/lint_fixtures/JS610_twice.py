"""JS610: one array passed twice to a call that donates it (run under real jax in tests/test_lint_donation_twice.py)."""
from functools import partial

import jax
import jax.numpy as jnp


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


FLAGGED = [self_step, self_both, self_named]
QUIET = [copied]
