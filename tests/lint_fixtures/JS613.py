"""JS613 jit-option-wrong-kind; each jit is built under real jax in tests/test_lint_jit_options.py."""
from functools import partial

import jax


def step(state, batch, scheduler, is_train):
    return state if is_train else batch


def build_positions_as_names():
    static_argnames = (2, 3)
    return jax.jit(step, donate_argnums=(0,), static_argnames=static_argnames)  # JS613


def build_names_as_positions():
    return jax.jit(step, static_argnums=("scheduler", "is_train"))  # JS613


def build_donate_names():
    return jax.jit(step, donate_argnames=(0,))  # JS613


def build_decorated():
    @partial(jax.jit, static_argnames=(3,))  # JS613
    def inner(state, batch, scheduler, is_train):
        return state

    return inner


def build_pmap():
    return jax.pmap(step, static_broadcasted_argnums=("is_train",))  # JS613


# look-alikes: the right kinds
def build_right():
    static_argnames = ("scheduler", "is_train")
    return jax.jit(step, static_argnames=static_argnames, donate_argnums=0)


def build_right_positions():
    return jax.jit(step, static_argnums=(2, 3), donate_argnames="state")
