import jax
import jax.numpy as jnp


def masked_softmax(logits, mask):
    return jax.nn.softmax(jnp.where(mask, logits, -1e100))  # JS307


@jax.jit
def penalty(x):
    return x + 1e40  # JS307


def typed(n):
    return jnp.float32(1e100), jnp.full((n,), 1e39, dtype=jnp.float32), jnp.asarray(7e4, jnp.float16)  # JS307, JS307, JS307


def fine(logits, mask, n):
    big = 1e100 * 2.0  # Python arithmetic: a Python float
    return (jnp.where(mask, logits, jnp.finfo(logits.dtype).min), jnp.where(mask, logits, -1e30),
            jnp.asarray(7e4, jnp.float32), logits < 1e100, jnp.full((n,), -jnp.inf), big)
