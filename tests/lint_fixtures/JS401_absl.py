"""absl logging is resolved like the standard library's (the file is linted, never imported)."""
import jax
from absl import logging
from absl import logging as alog


@jax.jit
def step(x):
    logging.info("x %s", x)  # JS401
    alog.warning("x %s", x)  # JS401
    return x + 1


def eager(x):
    logging.info("x %s", x)
    return x
