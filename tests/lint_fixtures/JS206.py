import jax
import jax.numpy as jnp

TRACES = []


def loss_fn(p, x):
    TRACES.append("loss_fn")
    return jnp.sum((x * p) ** 2)


def power(x, n):
    return x ** n


def evaluate(params, data):
    losses = []
    for x in data:
        losses.append(jax.jit(loss_fn)(params, x))  # JS206
    return losses


def powers(x, ns):
    out = []
    i = 0
    while i < len(ns):
        out.append(jax.jit(power, static_argnums=1)(x, ns[i]))  # JS206
        i += 1
    return out


def squares(xs):
    return [jax.jit(power, static_argnums=1)(x, 2) for x in xs]  # JS206


def local_import(x, n):
    out = []
    for _ in range(n):
        from jax import jit

        out.append(jit(loss_fn)(x, x))  # JS206
    return out


# ---- negatives ----

loss_jit = jax.jit(loss_fn)


def evaluate_ok(params, data):
    return [loss_jit(params, x) for x in data]


def rebound_each_time(params, data):
    out = []
    for x in data:
        def local(p):
            return p * x

        out.append(local(params))  # not jitted at all
    return out
