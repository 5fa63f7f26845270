"""Look-alike negatives from the real-library lint review (benchmarks/RESULTS.md, issue #13 item 6).

Each function below reproduces, in a few lines, a pattern that `jitscope lint` flagged in a real
JAX library although the code works under jit. tests/test_lint_lookalikes.py runs every one of
them under real jax.jit and lints this file: none may be flagged. The comment above each names
the library it came from.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax


# partial-bound-arg (chex fake_test.py): `flag` is bound by functools.partial before jit, a Python bool
def scale(x, y, flag):
    return x * 2 + y if flag else x + y


scale = functools.partial(scale, flag=True)
scale = jax.jit(scale)


# static-shape-fn (equinox nn/_pool.py): jnp.size returns a Python int
@jax.jit
def pairs(x):
    n = jnp.size(x)
    if n % 2:
        x = jnp.concatenate([x, jnp.zeros(1, x.dtype)])
    return x.reshape(jnp.size(x) // 2, 2)


# list-returning-fn (lineax _operator.py): jnp.split returns a Python list of static length
@jax.jit
def part_sums(x):
    parts = jnp.split(x, 3)
    return [p.sum() for p in parts]


# import-time-registry (equinox internal/_primitive.py): a dict of callables filled by a decorator at import
_REGISTRY = {}


def register(name):
    def deco(fn):
        _REGISTRY[name] = fn
        return fn

    return deco


@register("double")
def _double(x):
    return 2 * x


@jax.jit
def apply_double(x):
    return _REGISTRY["double"](x)


# sentinel (lineax _solve.py): comparing a defaulted argument with an object() sentinel
_sentinel = object()


@jax.jit
def with_state(x, state=_sentinel):
    if state == _sentinel:
        state = jnp.zeros_like(x)
    return x + state


# loop-over-dict-zip (blackjax ns/utils.py): zip(keys, dict.items()) runs len(dict) times, a static count
BOUNDS = {"a": (0.0, 1.0), "b": (1.0, 2.0)}


@jax.jit
def sample_params(key):
    keys = jax.random.split(key, len(BOUNDS))
    out = {}
    for k, (name, (lo, hi)) in zip(keys, BOUNDS.items()):
        out[name] = jax.random.uniform(k, minval=lo, maxval=hi)
    return out


# container-truthiness (brax positional/joints.py): `if limit:` tests a tuple, not a tracer
@jax.jit
def clamp(x, limit: tuple[jax.Array, jax.Array]):
    if limit:
        x = jnp.clip(x, limit[0], limit[1])
    return x


# jit-inside-traced (brax training/acting.py): jax.jit of a local function that only runs under trace
def unroll(x, n):
    def f(carry, _):
        return carry * 0.5, carry

    f_jit = jax.jit(f)
    return lax.scan(f_jit, x, None, length=n)


@jax.jit
def train_step(x):
    return unroll(x, 4)


# small-constant (flax examples, blackjax tests): a two-element table baked into the graph costs nothing
OFFSETS = jnp.array([1.0, -1.0])


@jax.jit
def shifted(x):
    return x[:, None] + OFFSETS


# static-config-loop (jax_md _nn/uma/nn/radial.py): a loop over a static layer-size tuple
SIZES = (6, 4, 2)


@jax.jit
def shrink(x):
    for i in range(1, len(SIZES)):
        x = jnp.tanh(x[: SIZES[i]])
    return x


# notebook-rebind (jax_md examples): a global rebound in a later cell, before the function's first trace
write_every = 100


def step(i, x):
    return x + jnp.where(i % write_every == 0, 1.0, 0.0)


write_every = 5


def run_steps():
    return lax.fori_loop(0, 20, step, 0.0)
