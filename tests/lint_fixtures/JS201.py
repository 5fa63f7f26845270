import jax
import jax.numpy as jnp


@jax.jit
def total(x):
    return sum(x)  # JS201


@jax.jit
def integral(x, y):
    prod = jnp.exp(-x ** 2) * jnp.exp(-y ** 2)
    return sum(prod) * 0.01  # JS201


@jax.jit
def largest(x):
    return max(x)  # JS201


@jax.jit
def flags(x):
    return any(x > 0), all(x < 1)  # JS201, JS201


@jax.jit
def squares(x):
    return sum(v * v for v in x)  # JS201


@jax.jit
def total_typed(x: jax.Array):
    return sum(x)  # JS201


@jax.jit
def total_used(x):
    return sum(x) / x.shape[0]  # JS201


@jax.jit
def sum_of_param(terms):
    # info: an array only if `terms` is one; a list of arrays is summed right
    return sum(terms)  # JS201


# ---- negatives ----

@jax.jit
def total_ok(x):
    return jnp.sum(x)


@jax.jit
def sum_of_list(a, b, c):
    return sum([a, b, c])


@jax.jit
def sum_static(x):
    return x * sum(x.shape) + max(x.shape[0], 1)


def eager(x):
    return sum(x)


@jax.jit
def two_arg_max(x):
    return jnp.maximum(x, 0.0)


def tree_mean(trees):
    return jax.tree.map(lambda *leaves: sum(leaves) / len(leaves), *trees)


@jax.jit
def tree_sum(d):
    return sum(v.sum() for v in d.values())  # a few pytree leaves, not array elements
