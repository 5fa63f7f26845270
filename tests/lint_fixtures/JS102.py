import jax
import jax.numpy as jnp


@jax.jit
def in_range(x, lo, hi):
    return x > lo and x < hi  # JS102


@jax.jit
def either(x, y):
    if x.any() or y:  # JS102
        return x
    return y


@jax.jit
def negate(x):
    return not x  # JS102


@jax.jit
def truthy(x):
    return bool(x.sum())  # JS102


# ---- negatives ----

@jax.jit
def clip_max(x, y):
    return max(x, y)  # JS102


@jax.jit
def clip_min(x):
    return min(x, 0.0)  # JS102


@jax.jit
def in_range_ok(x, lo, hi):
    return (x > lo) & (x < hi)


@jax.jit
def logical_ok(x, y):
    return jnp.logical_or(x > 0, jnp.logical_not(y))


@jax.jit
def static_flags(x, axis=None, keepdims=False):
    if axis is None or keepdims:
        return x.sum()
    return x


def eager(x, y):
    return x > 0 and y > 0


@jax.jit
def shape_logic(x):
    return x * 2 if not x.shape or x.ndim == 0 else x


@jax.jit
def shape_min(x):
    return x[: min(x.shape[0], 3)] * max(2, 1)


@jax.jit
def clip_ok(x, y):
    return jnp.maximum(x, y) + jnp.minimum(x, 0.0)


@jax.jit
def iterable_ok(x, k=0.0):
    if not jnp.iterable(k) and jnp.ndim(x) == 1:  # jnp.iterable answers in Python, on a tracer too
        return x + k
    return x


@jax.jit
def any_not(x):
    if not jnp.any(x) and x.ndim == 1:  # JS102, JS102
        return x
    return -x
