"""JS611 donation-by-keyword-ignored; run under real jax in tests/test_lint_donation.py."""
from functools import partial

import jax


def train_step(*, state, batch, lr):
    return state - lr * batch


def positional_step(state, batch):
    return state - batch


def keyword_calls(state, batch):
    p_step = jax.pmap(partial(train_step, lr=0.1), donate_argnums=(0, 1))
    state = p_step(state=state, batch=batch)  # JS611
    return state


def positional_calls(state, batch):
    p_step = jax.pmap(positional_step, donate_argnums=(0,))
    state = p_step(state, batch)
    return state


def jit_maps_keywords(state, batch):
    step = jax.jit(positional_step, donate_argnums=(0,))
    state = step(state=state, batch=batch)
    return state
