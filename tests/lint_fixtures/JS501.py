import jax
import jax.numpy as jnp
import numpy as np

W = jnp.ones((1024, 1024))
TABLE = np.arange(1_000_000)
MOVES = np.zeros((7, 64, 64), dtype=np.bool_)  # a 28,672-element lookup table, filled at import
MOVES = jnp.array(MOVES)
MASK = jnp.array([0, 1, 1, 1, 1, 1, 1, 0], dtype=jnp.bool_)
DUMMY = jnp.zeros(1)
SCALE = 2.0
ZERO = jnp.array(0)
NEG_ONE = jnp.asarray(-1.0)
ORIGIN = jnp.zeros(())


@jax.jit
def layer(x):
    return x @ W  # JS501


@jax.jit
def lookup(i):
    return jnp.asarray(TABLE)[i] + W[0, 0]  # JS501, JS501


# ---- negatives ----

@jax.jit
def layer_ok(x, W):
    return x @ W


@jax.jit
def scalar_constant(x):
    return x * SCALE


@jax.jit
def scalar_arrays_ok(x):
    return jnp.maximum(x, ZERO) + NEG_ONE + ORIGIN


def eager(x):
    return x @ W


@jax.jit
def small_tables_ok(piece, i):
    # pgx's move tables and othello's masks: small constants are cheaper baked in than passed
    return MOVES[piece, i, i] & MASK[i] & (DUMMY[0] == 0)
