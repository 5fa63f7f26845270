import functools

import jax
import jax.numpy as jnp


def model(p, v):
    return p * v


def predict(params, x):
    return jax.jit(lambda p, v: model(p, v))(params, x)  # JS204


def predict_all(params, xs):
    return [predict(params, x) for x in xs]  # `predict` runs once per x: a warning


# `apply` and `scaled` below: no caller here runs them more than once, so an info ("if `apply` runs more than once")


def apply(params, x):
    def loss(p):
        return jnp.sum(model(p, x))

    g = jax.jit(jax.grad(loss))  # not flagged: jax.grad(...) is not a fresh lambda/closure by itself
    step = jax.jit(loss)  # JS204
    return step(params), g


def scaled(x, s):
    return jax.jit(functools.partial(jnp.multiply, s))(x)  # JS204


# ---- negatives ----

predict_jit = jax.jit(model)


def predict_ok(params, x):
    return predict_jit(params, x)


def make_step(lr):
    def step(p, g):
        return p - lr * g

    return jax.jit(step)


def make_step2(lr):
    f = jax.jit(lambda p, g: p - lr * g)
    return f


class Trainer:
    def __init__(self, lr):
        self.step = jax.jit(lambda p, g: p - lr * g)


module_level = jax.jit(lambda v: v + 1)


def test_power_iteration():
    def power_iteration(m):
        return m @ m

    power_iteration = jax.jit(power_iteration)
    return power_iteration(jnp.eye(2))


def train_step(params, batch, lr):
    return params - lr * batch


def main(params, data, lr):
    step = jax.jit(functools.partial(train_step, lr=lr))  # a driver: compiled once, reused by the loop
    for batch in data:
        params = step(params, batch)
    return params
