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


@jax.jit
def layers(x, ws):
    for w in ws:  # JS202
        x = jnp.tanh(x @ w)  # info: ws may be a short list of weights (trip count unknown)
    return x


@jax.jit
def zipped(x, y):
    s = 0.0
    for a, b in zip(x, y):  # JS202
        s = s + a * b
    return s + x.shape[0]


@jax.jit
def nested(x):
    acc = 0.0
    for i in range(x.shape[0]):  # JS202
        for j in range(x.shape[1]):  # reported once, on the outer loop, with the product
            acc = acc + x[i, j]
    return acc


@jax.jit
def comp_range(x):
    return jnp.stack([x[i] * 2 for i in range(x.shape[0])])  # JS202


@jax.jit
def comp_rows(x):
    return jnp.stack([jnp.sin(r) for r in x]) + x[0]  # JS202


@jax.jit
def comp_dict(x):
    return {i: x[i] + x.mean() for i in range(len(x))}  # JS202


# ---- negatives ----

@jax.jit
def comp_small(x):
    return jnp.stack([jnp.roll(x, k) for k in range(3)])


@jax.jit
def comp_static_list(x):
    return [x * s for s in (0.5, 1.0, 2.0)]


@jax.jit
def leaves_norm(params):
    return jnp.sqrt(sum(jnp.sum(v * v) for v in jax.tree_util.tree_leaves(params)))


@jax.jit
def comp_no_array_work(x):
    return x, [str(i) for i in range(x.shape[0])]


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
