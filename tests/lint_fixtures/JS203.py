import functools

import jax
import jax.numpy as jnp


def double(x):
    return x * 2


def main(batches):
    out = []
    for x in batches:
        out.append(jax.jit(lambda v: v * 2 + 1)(x))  # JS203
    return out


def sweep(x, scales):
    for s in scales:
        f = jax.jit(functools.partial(jnp.multiply, s))  # JS203
        x = f(x)
    return x


def per_item(xs):
    out = []
    for v in xs:
        def inner(u):
            return u + v

        out.append(jax.jit(inner)(v))  # JS203
    return out


# ---- negatives ----

double_jit = jax.jit(double)


def main_ok(batches):
    return [double_jit(x) for x in batches]


def hoisted(batches):
    f = jax.jit(lambda v: v * 2 + 1)
    return [f(x) for x in batches]


def defined_before_loop(xs):
    def inner(v):
        return v + 1

    return [jax.jit(inner)(v) for v in xs]  # same function object each time: cache hits


def wrap_module_level(batches):
    for x in batches:
        y = jax.jit(double)(x)
    return y
