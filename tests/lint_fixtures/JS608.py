from functools import partial

import equinox as eqx
import jax


@partial(jax.jit, static_argnames="training")
def layer(x, training):
    return x * 2 if training else x


@eqx.filter_jit
def filtered_layer(x, training: bool):
    return x * 2


@jax.jit
def step(x, training):
    return layer(x, training=training)  # JS608


@jax.jit
def step_flag(x):
    positive = x.sum() > 0
    return layer(x, positive)  # JS608


@partial(jax.jit, static_argnames="training")
def step_static(x, training):
    return layer(x, training=training)  # static in the caller too: a Python bool


@jax.jit
def step_shape(x):
    return layer(x, x.shape[0] > 1)  # a shape is a Python int under jit


@jax.jit
def step_filtered(x, training):
    return filtered_layer(x, training)  # filter_jit traces an array it would keep static by type
