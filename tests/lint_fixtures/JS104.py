import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def f(x):
    return np.sin(x) + 1  # JS104


@jax.jit
def g(x, y):
    z = x * y
    return np.dot(z, z)  # JS104


@jax.jit
def h(x):
    return jnp.asarray(np.array(x))  # JS104


# ---- negatives ----

@jax.jit
def ok(x):
    return jnp.sin(x) + np.pi


@jax.jit
def static_numpy(x):
    n = np.prod(x.shape)
    table = np.arange(4)
    return x.reshape(n) + jnp.asarray(table).sum()


def eager(x):
    return np.sin(x)


@jax.jit
def delegating_ok(x):
    return np.sum(x, axis=0) + np.mean(x) + np.transpose(x)  # NumPy calls x.sum(), x.mean(), x.transpose()


@jax.jit
def dtype_ok(x):
    return x.astype(np.float32) + np.finfo(np.float32).eps
