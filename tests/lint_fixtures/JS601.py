import jax
import jax.numpy as jnp


@jax.jit
def reset_first(x):
    x[0] = 0.0  # JS601
    return x


@jax.jit
def bump(x, i):
    x[i] += 1.0  # JS601
    return x


@jax.jit
def scale_first(x):
    y = x.shape[0]
    x[0] = y  # JS601
    return x


def build(n):
    a = jnp.zeros(n)
    a[1:3] = 5.0  # JS601
    return a


# ---- negatives ----

@jax.jit
def reset_first_ok(x):
    x = x.at[0].set(0.0)
    return x


def numpy_ok(n):
    import numpy as np

    a = np.zeros(n)
    a[0] = 1.0
    return a


def dict_ok(x):
    d = {}
    d["x"] = x
    return d


@jax.jit
def preprocess(batch):
    batch["image"] = batch["image"] / 255.0  # a dict pytree: item assignment on a Python dict
    return batch


@jax.jit
def double_all(batch):
    for k, v in batch.items():
        batch[k] = v * 2
    return batch
