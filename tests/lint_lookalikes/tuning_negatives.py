"""Look-alike negatives from the issue #25 review of the tuning libraries (benchmarks/RESULTS.md).

Each function reproduces, in a few lines, code that `jitscope lint` flagged in a tuning library although
it works under jit; the comment names the library. tests/test_lint_lookalikes_tuning.py runs each under
real JAX and lints this file: none may be flagged by the rule that flagged its original.
"""

import functools
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


# body-default (dm-pix augment.py): lax.cond calls the branch with the operand only; `channel_axis`
# keeps its Python default
def _channels_last(image, channel_axis):
    last = channel_axis == -1 or channel_axis == (image.ndim - 1)
    if not last:
        assert channel_axis == -3
    return last


def flip_left_right(image, *, channel_axis=-1):
    if _channels_last(image, channel_axis):
        return jnp.flip(image, axis=-2)
    return jnp.flip(image, axis=-1)


@jax.jit
def random_flip(key, image):
    return lax.cond(jax.random.uniform(key) < 0.5, flip_left_right, lambda x: x, image)


# filter-jit-strings (interpax _ppoly.py): under filter_jit a tuple of strings is static
@eqx.filter_jit
def spline_ends(y, bc):
    periodic = isinstance(bc[0], str) and bc[0] == "periodic"
    if periodic:
        return y - y[0]
    return y


# vmap-none-tail (jaxley modules/base.py): every argument after `*nones` is unmapped, a NumPy array stays one
def voltage_step(v, g, types, n_nodes):
    condition = np.isin(types, [3, 4])
    if np.sum(condition) > 0:
        return v * g + jnp.ones(n_nodes)[0]
    return v * g


def run_voltage_step(v, g, types):
    nones = [None] * 2
    return jax.vmap(voltage_step, in_axes=(0, 0, *nones))(v, g, types, 3)


# typeerror-fallback (jaxns allocation.py): the traced case is caught on purpose
def _validate_count(count):
    try:
        if int(np.asarray(count)) <= 0:
            raise ValueError("count must be positive")
    except TypeError:
        return


@jax.jit
def allocate(x, count):
    _validate_count(count)
    return x * count


# meshgrid-list (jaxns diagnostics/reference.py): jnp.meshgrid returns a Python list of arrays
@jax.jit
def grid_points(u):
    return jnp.stack([g.flatten() for g in jnp.meshgrid(u, u, indexing="ij")], axis=-1)


# global-cache (kfac-jax utils/parallel.py): the jitted lambda is built once and kept in a global
_sync = None


def _first(tree):
    return jax.tree_util.tree_map(lambda v: v[0], tree)


def host_sync(obj, sync_op):
    if jax.process_count() >= 1:
        global _sync
        if _sync is None:
            _sync = jax.pmap(lambda x, op: op(x, "i"), devices=jax.local_devices()[:1], axis_name="i",
                             static_broadcasted_argnums=1)
        obj = jax.tree_util.tree_map(lambda x: jnp.expand_dims(x, axis=0), obj)
        return _first(_sync(obj, sync_op))
    return obj


def host_sum(x):
    return host_sync(x, lax.psum)


# script-rebind (jax-md examples/symmetric_md.py): a later cell rebinds `step_fn` for a new function;
# the old jitted reader is never run again
step_fn = jax.jit(lambda s: s - 0.1 * s)


@jax.jit
def minimize_step(state):
    return step_fn(state)


minimized = minimize_step(jnp.ones(3))
step_fn = jax.jit(lambda s: s + 0.5)


@jax.jit
def simulate_step(state):
    return step_fn(state)


simulated = simulate_step(minimized)


# def-in-force (jaxley tests/test_clamp.py): `jax.jit(simulate)` wraps the def above it, not a later one
def clamp_twice(x):
    def simulate(v):
        return v * 2.0

    jitted_simulate = jax.jit(simulate)
    first = jitted_simulate(x)
    cell = x + 1.0

    def simulate(v):  # noqa: F811 - the test's own pattern
        return v * cell

    jitted_simulate = jax.jit(simulate)
    return first, jitted_simulate(x)


# no-call-after-rebind (jaxopt tests/common_test.py): `data` is rebound, the jitted reader never runs again
def solve_both(x):
    data = (x, x)

    @jax.jit
    def run_solver(p0):
        return p0 + data[0]

    out = run_solver(x)
    data = (x * 2, x)
    return out, data


# dict-of-objects (rax examples/approx_metrics/main.py): a dict pytree of metric objects is filled by key
@jax.tree_util.register_pytree_node_class
class Average:
    def __init__(self, total, count):
        self.total, self.count = total, count

    def merge(self, other):
        return Average(self.total + other.total, self.count + other.count)

    def tree_flatten(self):
        return (self.total, self.count), None

    @classmethod
    def tree_unflatten(cls, _, children):
        return cls(*children)


METRICS = {"mean": jnp.mean, "max": jnp.max}


@jax.jit
def update_metric_values(scores, metric_values):
    for metric_name, metric in METRICS.items():
        metric_values[metric_name] = metric_values[metric_name].merge(Average(metric(scores), 1))
    return metric_values


# make-jaxpr-loop (brainstate _ir_tocode_test.py): make_jaxpr traces for the graph only; nothing compiles
def long_program(x):
    for _ in range(230):
        x = jnp.sin(x)
    return x


def long_jaxpr(x):
    return jax.make_jaxpr(long_program)(x)


partial_scale = functools.partial(jnp.multiply, 2.0)


# passed-not-none (jaxns random_utils.py): the jitted caller always passes S, so `if S is None:` never runs traced
def resample_indices(key, log_weights, S=None):
    if S is None:
        S = int(jnp.exp(2.0 * jax.scipy.special.logsumexp(log_weights)))
    return jax.random.choice(key, log_weights.shape[0], (S,))


@functools.partial(jax.jit, static_argnames=["num_samples"])
def resample(key, log_weights, num_samples):
    return resample_indices(key, log_weights, S=num_samples)


# pytree-accessor (jax-md custom_partition.py): an `-> int` accessor counting data runs on the host
class NeighborList(NamedTuple):
    idx: jax.Array

    @property
    def n_edges(self) -> int:
        return int(jnp.sum(self.idx >= 0))

    def real(self):  # pytree-host-method (netket mc_stats.py): NumPy on its own fields, written for the host
        return self._replace(idx=np.real(self.idx))


def count_edges(idx):
    return NeighborList(idx).n_edges, NeighborList(idx).real()
