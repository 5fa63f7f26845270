import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def walk(steps):
    pos = 0.0
    for i in range(steps.shape[0]):  # JS202
        pos = pos + steps[i]
    return pos


@jax.jit
def rows(x):
    out = 0.0
    for row in x:  # JS202
        out = out + jnp.tanh(row)
    return out


@jax.jit
def g(x):
    y = x
    for _ in range(100):  # JS202
        y = y * 2 + jnp.sin(y)
    return y.mean()


@jax.jit
def by_len(x):
    acc = jnp.zeros(())
    for i, v in enumerate(x):  # JS202
        acc = acc + v * i
    return acc


# ---- negatives ----

@jax.jit
def few(x):
    for _ in range(3):
        x = x * 2
    return x


@jax.jit
def over_static_list(params, x):
    for scale in [0.5, 1.0, 2.0]:
        x = x * scale
    return x


@jax.jit
def fori(x):
    return lax.fori_loop(0, x.shape[0], lambda i, acc: acc + x[i], 0.0)


@jax.jit
def scan_ok(steps):
    final, path = lax.scan(lambda p, s: (p + s, p + s), 0.0, steps)
    return final


@jax.jit
def no_array_work(x):
    names = []
    for i in range(x.shape[0]):
        names.append(str(i))
    return x


def eager(x):
    total = 0.0
    for row in x:
        total = total + jnp.sum(row)
    return total
