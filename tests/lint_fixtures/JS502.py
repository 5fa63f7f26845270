import jax
import jax.numpy as jnp

g = 0.0
lr = 0.1
config = {"scale": 2.0}
EPS = 1e-6
MEMORY_SPACES = {"hbm": 0, "vmem": 1}


@jax.jit
def f(x):
    return x + g  # JS502


@jax.jit
def update(p, grad):
    return p - lr * grad  # JS502


@jax.jit
def scaled(x):
    return x * config["scale"]  # JS502


def set_lr(v):
    global lr
    lr = v


def set_scale(v):
    config["scale"] = v


# ---- negatives ----

@jax.jit
def f_ok(x, g):
    return x + g


@jax.jit
def constant_ok(x):
    return x + EPS + jnp.pi


@jax.jit
def lookup_table_ok(x):
    return x * MEMORY_SPACES["vmem"]  # a dict that nothing mutates


def eager(x):
    return x + g


SIZE = 3
SIZE = SIZE * 2  # rebound once at import time, before anything runs: a constant
if EPS > 0:
    MODE = "fast"
else:
    MODE = "exact"


@jax.jit
def settled_ok(x):
    return x * SIZE if MODE == "fast" else x


first = f(1.0)
g = 10.0  # after f ran: f's compiled graph keeps g == 0.0
second = f(1.0)
