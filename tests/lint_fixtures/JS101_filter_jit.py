# equinox.filter_jit traces only the array leaves: every other argument is a static Python value.
import equinox as eqx
import jax.numpy as jnp


@eqx.filter_jit
def solve(y0, max_steps: int | None = 4096, throw: bool = True):
    if max_steps is not None and max_steps > 10:  # a Python int
        y0 = y0 * 2
    if throw:
        y0 = y0 + 1
    return y0


@eqx.filter_jit
def integrate(y0, dt=0.1, adjoint=None, progress_meter=None):
    if dt > 0.05:  # a Python float default
        y0 = y0 * dt
    return y0


@eqx.filter_jit
def step(y, inference):
    if inference:  # an unannotated bool flag: only ever a truth value
        return jnp.tanh(y)
    return y


@eqx.filter_jit
def clipped(y, limit):
    if y.max() > limit:  # JS101
        return y / y.max()
    return y
