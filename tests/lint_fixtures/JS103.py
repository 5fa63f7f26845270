import jax
import jax.numpy as jnp


@jax.jit
def scale(x, n):
    return x * float(n.sum())  # JS103


@jax.jit
def first(x):
    return x[0].item()  # JS103


@jax.jit
def as_list(x):
    return x.tolist()  # JS103


@jax.jit
def count(x):
    k = int(jnp.argmax(x))  # JS103
    return x * k


# ---- negatives ----

@jax.jit
def rows(x):
    n = int(x.shape[0])
    return x / float(n)


@jax.jit
def cast_ok(x):
    return x.astype(jnp.float32) * 2.0


def host_side(x):
    return float(x.sum())


@jax.jit
def size_ok(x):
    return x * int(len(x))
