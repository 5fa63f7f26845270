import jax.numpy as jnp
from jax import lax


def body(i, v):
    return v + i


x = jnp.ones(3)
for _ in range(10):
    x = lax.fori_loop(0, 3, lambda i, v: v + i, x)  # JS209
    x = lax.fori_loop(0, 3, body, x)
