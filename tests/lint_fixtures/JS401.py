import logging

import jax
import jax.numpy as jnp

logger = logging.getLogger(__name__)


@jax.jit
def step(x):
    print("x =", x)  # JS401
    return x + 1


@jax.jit
def logged(x):
    logging.info("step %s", x)  # JS401
    y = x * 2
    logger.debug("y %s", y)  # JS401
    return y


# ---- negatives ----

@jax.jit
def step_ok(x):
    jax.debug.print("x = {x}", x=x)
    return x + 1


def train(x):
    print("starting")
    logger.info("training on %s", x.shape)
    return step_ok(x)


@jax.jit
def callback_ok(x):
    jax.debug.callback(lambda v: None, x)
    return jnp.sin(x)
