import jax
import jax.numpy as jnp


@jax.jit
def schedule(count):
    count = jnp.minimum(count, 10**10)  # JS306
    return count * 2**31  # JS306


def mix(key):
    k = jnp.zeros(3, jnp.uint32)
    return k ^ 0xFFFFFFFF  # JS306


def fine(n):
    total = n * 10**10
    return jnp.float32(total) * 1e10, jnp.asarray(2**40, jnp.float32), jnp.int32(1) + (2**31 - 1)
