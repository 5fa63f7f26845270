"""Look-alikes of the tracing model (docs/lint.md "The tracing model"), one per row or class it decides.

tests/test_lint_model.py runs each under real JAX (does it work, or raise?) and lints this file:
code that works must draw no finding (or, where some way of reaching it fails, a warning), and
code that fails on every way it is reached an error.
"""

import functools
from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

try:
    from jax import shard_map
except ImportError:  # JAX < 0.7
    from jax.experimental.shard_map import shard_map

MESH = Mesh(np.array(jax.devices()[:1]), ("i",))


# grad outside jit: the value is a concrete tracer, a Python `if` works
@jax.grad
def grad_eager(x):
    if x > 0:
        return x * x
    return -x


def run_grad_eager():
    return grad_eager(2.0)


# the same grad under jit: abstract, the `if` raises
@jax.grad
def grad_jitted(x):
    if x > 0:  # error: every way here is under jit
        return x * x
    return -x


@jax.jit
def run_grad_jitted(x):
    return grad_jitted(x)


# vjp of a Python `if` outside jit: concrete
def smooth(x):
    if x.sum() > 0:
        return x * 2.0
    return x


def run_vjp(x):
    out, pullback = jax.vjp(smooth, x)
    return pullback(out)


# shard_map outside jit runs its body on concrete shards
def shard_body(x):
    if x.sum() > 0:
        return x
    return -x


def run_shard_map(x):
    return shard_map(shard_body, mesh=MESH, in_specs=P(), out_specs=P())(x)


# eager vmap: the body runs on every call, so a print there is not "only while tracing"
def per_example(x):
    print("mapping", x)
    return x * 2.0


def run_vmap(xs):
    return jax.vmap(per_example)(xs)


# in_axes computed at run time: `n` may be unmapped, reaching the function as a Python int
def scaled(x, n):
    if n > 1:  # a warning at most: which arguments are mapped is known only at run time
        return x * n
    return x


def run_axes(xs, n, mapped):
    axes = (0, 0 if mapped else None)
    return jax.vmap(scaled, in_axes=axes)(xs, n)


# a Sequence parameter is a Python container of arrays: its truth value is its length
@jax.jit
def total(xs: Sequence[jax.Array]):
    if not xs:
        return jnp.zeros(())
    return sum(x.sum() for x in xs)


# a default the jitted function's only caller never passes stays the Python default
@jax.jit
def _repeat(x, times=3):
    for _ in range(times):
        x = x * 2.0
    return x


def run_repeat(x):
    return _repeat(x)


# nondiff_argnums: the rule gets the caller's Python value
@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def clipped(limit, x):
    return jnp.minimum(x, limit)


@clipped.defjvp
def clipped_jvp(limit, primals, tangents):
    (x,), (t,) = primals, tangents
    if limit > 0:  # a Python float
        return clipped(limit, x), jnp.where(x < limit, t, 0.0)
    return clipped(limit, x), t


@jax.jit
def run_clipped(x):
    return jax.grad(lambda y: clipped(1.0, y).sum())(x)


# jnp on Python values inside ensure_compile_time_eval is concrete even under jit
@jax.jit
def evaluated(x):
    with jax.ensure_compile_time_eval():
        table = jnp.arange(4)
        if table.sum() > 3:
            x = x + table[1]
    return x


# a branch that runs only when the value is not a tracer
@jax.jit
def guarded(x):
    if isinstance(x, jax.core.Tracer):
        return x * 2.0
    if x.sum() > 0:
        return x
    return -x


def eager_only(x):
    if not isinstance(x, jax.core.Tracer) and float(x.sum()) < 0:
        raise ValueError("negative")
    return x


def guarded_numpy(x):
    if isinstance(x, np.ndarray):
        if x.sum() > 0:
            return x
    return jnp.asarray(x)


@jax.jit
def run_guarded_numpy(x):
    return guarded_numpy(x) * 2.0


# a dict carry is a Python dict of traced leaves: its keys are static
def count_body(carry, x):
    for key in carry:
        carry = {**carry, key: carry[key] + x}
    return carry, None


@jax.jit
def run_count(xs):
    init = {"a": jnp.zeros(()), "b": jnp.zeros(())}
    return lax.scan(count_body, init, xs)[0]


# the `if` fails on every way here: the private helper's only caller jits it
def _helper(x):
    if x.sum() > 0:  # error
        return x
    return -x


@jax.jit
def run_helper(x):
    return _helper(x)


# the same helper also called eagerly: some ways fail, some work
def shared(x):
    if x.sum() > 0:  # warning
        return x
    return -x


@jax.jit
def run_shared(x):
    return shared(x)


def run_shared_eagerly(x):
    return shared(x)


# a transform applied inside jit's argument runs under the jit: abstract, and staged
def mapped_sign(x):
    if x > 0:  # error
        return x
    return -x


run_mapped_sign = jax.jit(jax.vmap(mapped_sign))


def differentiated(x):
    if x > 0:  # error: jit(grad(f)) traces f with abstract values
        return x * x
    return -x


run_differentiated = jax.jit(jax.grad(differentiated))


# a pytree's computation method runs on traced fields when an instance passes through jit
class Body(NamedTuple):
    points: jax.Array
    masses: jax.Array

    def mass(self):
        if jnp.any(self.points > 100.0):  # warning: fails under jit, works on the host
            raise ValueError("points out of range")
        return self.masses.sum()


@jax.jit
def total_mass(body):
    return body.mass()


class Board(NamedTuple):
    cells: jax.Array

    @property
    def size(self) -> int:
        return int(jnp.sqrt(self.cells.shape[-1]).item())  # warning: jnp on a shape makes a tracer under jit


@jax.jit
def scaled_board(board):
    return board.cells * board.size


# a dtype predicate answers from the dtype: a Python bool even under jit (issue #25 validation classes)
@jax.jit
def dtype_branch(x):
    if jnp.isdtype(x.dtype, "real floating"):
        return x * 2.0
    return x


# a tuple or list of arrays is a Python container: `isinstance`, `len`, truth and iteration are Python work
@jax.jit
def boxed(params):
    if isinstance(params, (tuple, list)):
        if not params:
            return jnp.zeros(())
        return sum(p.sum() for p in params)
    return params.sum()


# vmap of a bound method: in_axes counts from the parameter after self, so `n` is unmapped (a Python int)
class Scaler:
    def _one(self, x, n):
        if n > 1:
            return x * n
        return x

    def run(self, xs, n):
        return jax.vmap(self._one, in_axes=(0, None))(xs, n)


# code after a `return` never runs, so JAX never traces it
@jax.jit
def early(x):
    return x * 2.0
    print("never printed", x)


# a name rebound before use: the list is made a tuple before it reaches the static argument
@functools.partial(jax.jit, static_argnames=("shape",))
def filled(x, shape):
    return jnp.zeros(shape) + x.sum()


def remade(x):
    shape = [1, 2]
    shape = tuple(shape)
    return filled(x, shape=shape)


# a parameter rebound to a fresh local list: appending to it leaks nothing
@jax.jit
def fresh_acc(x, acc):
    acc = []
    acc.append(x * 2.0)
    return acc[0]


# a guard that is one term of an `and` still runs its branch on a Python container: `ks` has a static length
@jax.jit
def seq_scaled(x, ks):
    if isinstance(ks, Sequence) and len(ks) > 0:
        for k in ks:
            x = x * k
    return x


# `len` of a tuple (one entry per spatial dimension) is a Python int: the loop repeats per dimension, not per datum
@jax.jit
def windowed(x, window):
    window = tuple(window) if not isinstance(window, tuple) else window
    for i in range(len(window)):
        x = x * window[i]
    return x



# a dict-valued field of a pytree is a Python dict of traced leaves: its truth value is its length
class Gains(NamedTuple):
    w: jax.Array
    gains: dict[str, jax.Array]

    def apply(self, x):
        if not self.gains:
            return x * self.w
        return x * self.w * self.gains["k"]


@jax.jit
def gained(g: Gains, x):
    if g.gains and len(g.gains) > 1:
        return g.apply(x) * 2.0
    return g.apply(x)


# a builtin reduction over type checks is Python work: no JAX op per element
@jax.jit
def typed_pick(xs):
    if any(isinstance(v, jax.Array) and v.ndim == 1 for v in xs):
        return xs[0]
    return xs[1]
