# Every way a function becomes traced, each with one Python `if` on a traced value.
import functools
from functools import partial

import equinox as eqx
import jax
import jax as j
import jax.numpy as jnp
from jax import grad, lax, vmap
from jax import jit as J


@J
def bare_alias(x):
    if x > 0:  # JS101
        return x
    return -x


@j.jit
def module_alias(x):
    if x > 0:  # JS101
        return x
    return -x


@partial(jax.jit, static_argnames=("n",))
def partial_jit(x, n):
    if n > 1:
        x = x * n
    if x.sum() > n:  # JS101
        return x
    return -x


@functools.partial(J, static_argnums=(0, -1))
def partial_alias(n, x, k):
    if n + k > 0:
        x = x + 1
    if x.mean() > 0:  # JS101
        return x
    return x


@jax.jit(static_argnames="n")
def factory_form(x, n):
    if n:
        return x
    if x[0] > 0:  # JS101
        return x
    return x


@jax.pmap
def pmapped(x):
    if x > 0:  # JS101
        return x
    return x


@eqx.filter_jit
def filtered(x, n: int):
    if n > 0:
        x = x * 2
    if x.max() > 0:  # JS101
        return x
    return x


@vmap
def vmapped(x):
    if x > 0:  # JS101
        return x
    return x


@grad
def grad_first(x, n):
    if n > 1:
        x = x * n
    if x > 0:  # eager grad: x is a concrete tracer, Python control flow works (jaxmodel row jax.grad)
        return x
    return x


@grad
def grad_under_jit(x):
    if x > 0:  # JS101
        return x
    return x


@jax.jit
def calls_grad(x):
    return grad_under_jit(x)  # under jit, grad sees abstract values


@jax.checkpoint
def remat(x):
    y = jnp.sin(x) * 2
    if y > 0:  # JS101
        return y
    return x


def wrapped_later(x):
    if x > 0:  # JS101
        return x
    return x


h = jax.jit(wrapped_later)


def wrapped_static(x, n):
    if n > 2:
        return x
    if x > n:  # JS101
        return x
    return x


hs = jax.jit(wrapped_static, static_argnums=1)


def outer(xs):
    def body(i, acc):
        if acc > i:  # JS101
            return acc
        return acc + xs[i]

    def cond_fun(c):
        return c[0] < 10

    def loop_body(c):
        if c[1] > 0:  # JS101
            return c
        return c

    def true_branch(v):
        if v.sum() > 0:  # JS101
            return v
        return v

    y = lax.fori_loop(0, 10, body, 0.0)
    z = lax.while_loop(cond_fun, loop_body, (0, y))
    w = lax.cond(y > 0, true_branch, lambda v: v, xs)
    s = lax.switch(0, [true_branch, lambda v: v if v > 0 else v], xs)  # JS101
    m = jax.vmap(lambda v: v if v > 0 else -v)(xs)  # JS101
    return y, z, w, s, m


@jax.jit
def nested(x):
    def helper(scale):
        if x.sum() > scale:  # JS101
            return x
        return x * scale

    def static_helper(v, axis):
        if axis == 0:  # parameters of a plain helper are unknown (often static): not flagged
            return v
        return v.T

    return static_helper(helper(2.0), 0)


@jax.jit
def dataflow(x, y):
    a = x * 2 + 1
    b = jnp.dot(a, y)
    c = b.sum()
    n = x.shape[0]
    if n > 3:
        pass
    if c:  # JS101
        pass
    (d := a.mean())
    if d > 0:  # JS101
        pass
    return c


class Model:
    @jax.jit
    def method(self, x):
        if self.training:
            x = x * 2
        if x > 0:  # JS101
            return x
        return x


import flax.linen as nn  # noqa: E402


class MLP(nn.Module):
    features: int = 8

    @nn.compact
    def __call__(self, x, train: bool, dropout_rate=0.1):
        if train:  # annotated bool: configuration, not traced
            x = nn.Dropout(dropout_rate, deterministic=False)(x)
        if x.mean() > 0:  # JS101
            x = -x
        return nn.Dense(self.features)(x)


class Block(nn.Module):
    rate: float = 0.1

    @nn.compact
    def __call__(self, x, train):
        x = nn.Dropout(self.rate, deterministic=not train)(x)
        if train:  # configuration (not the first input): a Python value
            x = x * 2
        return x


@jax.jit
def enum_branch(xs):
    out = 0.0
    for i, r in enumerate(xs):
        if r > 0:  # JS101
            out = out + i
    for a, b in zip(xs, xs):
        if a > b:  # JS101
            out = out + 1
    return out
