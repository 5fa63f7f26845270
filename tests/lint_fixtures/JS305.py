import jax.numpy as jnp
from jax import lax


def merge_all(n):
    board = jnp.zeros(121, jnp.int16)

    def merge(i, b):
        return jnp.where(b > 0, jnp.int32(i), b)  # JS305

    board = lax.fori_loop(0, n, merge, board)
    return board


def scan_carry(xs):
    def step(carry, x):
        total, count = carry
        return (total + x, count.astype(jnp.int32)), x  # JS305

    return lax.scan(step, (jnp.float32(0), jnp.int8(0)), xs)


def branches(p):
    return lax.cond(p, lambda: jnp.zeros(3, jnp.float16), lambda: jnp.zeros(3, jnp.float32))  # JS305


def weak_carry(n):
    board = jnp.zeros(121, jnp.int16)
    return lax.fori_loop(0, n, lambda i, b: b + 1, board)


def unknown_dtype(n, action):
    board = jnp.zeros(121, jnp.int16)
    return lax.fori_loop(0, n, lambda i, b: jnp.where(b > 0, action + 1, b), board)
