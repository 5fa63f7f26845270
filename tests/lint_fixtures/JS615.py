"""JS615 fixture: traced values at custom_vjp nondiff positions, and look-alikes that work (run under real JAX by
tests/test_lint_traced_nondiff.py)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_grad(x, bound):
    return x


def _clip_fwd(x, bound):
    return x, None


def _clip_bwd(bound, res, g):
    return (jnp.clip(g, -bound, bound),)


clip_grad.defvjp(_clip_fwd, _clip_bwd)


def _scaled(x, scale):
    return x * scale


def _scaled_fwd(x, scale):
    return x * scale, None


def _scaled_bwd(scale, res, g):
    return (g * scale,)


scaled = jax.custom_vjp(_scaled, nondiff_argnames=("scale",))
scaled.defvjp(_scaled_fwd, _scaled_bwd)


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def smooth(x, width):
    return x / width


@smooth.defjvp
def _smooth_jvp(width, primals, tangents):
    (x,), (t,) = primals, tangents
    return smooth(x, width), t / width


@jax.jit
def step(x, bound):
    return clip_grad(x, bound)  # JS615


@jax.jit
def step_keyword(x, s):
    return scaled(x, scale=s * 2)  # JS615


# look-alikes: a Python value at the nondiff position, a custom_jvp (which takes tracers there)

@partial(jax.jit, static_argnums=1)
def step_static(x, bound):
    return clip_grad(x, bound)


@jax.jit
def step_constant(x):
    return clip_grad(x, 1.0) + scaled(x, 2.0)


@jax.jit
def step_jvp(x, w):
    return smooth(x, w)


def calls():
    """Each function with its arguments, for the test to run under real JAX: (name, function, args, fails)."""
    x = jnp.arange(3.0)
    return [("step", step, (x, 1.0), True), ("step_keyword", step_keyword, (x, 1.0), True),
            ("step_static", step_static, (x, 1.0), False), ("step_constant", step_constant, (x,), False),
            ("step_jvp", step_jvp, (x, 2.0), False)]
