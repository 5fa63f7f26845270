"""JS616 fixture: jit options naming parameters the function lacks, and look-alikes that build (each built under
real JAX by tests/test_lint_jit_option_names.py, in ``build()``: the module itself imports cleanly)."""

from functools import partial

import jax


def build():
    """Each case as (name, thunk building the jit, fails)."""

    @partial(jax.jit, static_argnames=("scale", "order"))  # JS616
    def polynomial(x, y, *, p):
        return x * y * p

    return polynomial


def polynomial_ok():
    @partial(jax.jit, static_argnames=("p",))
    def polynomial(x, y, *, p):
        return x * y * p

    return polynomial


def _step(state, batch, n):
    return state


def _step_kwargs(state, **options):
    return state


def _step_args(state, *batches):
    return state


def make_step():
    return jax.jit(_step, static_argnums=(3,))  # JS616


def make_step_donate():
    return jax.jit(_step, donate_argnames="params")  # JS616


def make_step_ok():
    return jax.jit(_step, static_argnums=(2,), donate_argnames="state")


def make_step_negative_ok():
    return jax.jit(_step, static_argnums=-1)


def make_kwargs_ok():
    return jax.jit(_step_kwargs, static_argnames="mode")


def make_args_ok():
    return jax.jit(_step_args, static_argnums=4)


def _any_args(f):
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapper


@_any_args
def _wrapped(x):
    return x


def make_wrapped_ok():
    """jit checks the decorator's wrapper (*args, **kwargs), not the def's signature: no claim."""
    return jax.jit(_wrapped, static_argnums=(3,), static_argnames=("n",))


def _rebound(x):
    return x


for _rebound in [lambda x, n: x * n]:  # the module name now holds a two-argument lambda
    pass


def make_rebound_ok():
    return jax.jit(_rebound, static_argnums=(1,))


class _Holder:
    def _step(x, n):  # the class body's own `_step`, not the module's
        return x * n

    jitted = jax.jit(_step, static_argnums=(1,), static_argnames=("n",))


def make_class_body_ok():
    return _Holder.jitted


CASES = [("decorated", build, True), ("decorated ok", polynomial_ok, False), ("position", make_step, True),
         ("donated name", make_step_donate, True), ("ok", make_step_ok, False),
         ("negative ok", make_step_negative_ok, False), ("kwargs ok", make_kwargs_ok, False),
         ("args ok", make_args_ok, False),
         ("wrapped ok", make_wrapped_ok, False), ("rebound ok", make_rebound_ok, False),
         ("class body ok", make_class_body_ok, False)]
