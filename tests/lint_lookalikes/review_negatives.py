"""Look-alike negatives from the real-library lint review (benchmarks/RESULTS.md, issue #13 item 6).

Each function below reproduces, in a few lines, a pattern that `jitscope lint` flagged in a real
JAX library although the code works under jit. tests/test_lint_lookalikes.py runs every one of
them under real jax.jit and lints this file: none may be flagged. The comment above each names
the library it came from.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
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


# ---- classes found by the second review (benchmarks/RESULTS.md, "Real-library lint review") ----

# pytree-method-size (brax actuator.py, generalized/*.py): a method of a traced pytree returns a Python int
class System:
    def __init__(self, nv, gear):
        self.nv, self.gear = nv, gear

    def qd_size(self) -> int:
        return self.nv


jax.tree_util.register_pytree_node(System, lambda s: ((s.gear,), s.nv), lambda nv, ch: System(nv, ch[0]))


@jax.jit
def to_tau(sys, act):
    if sys.qd_size() == 0:
        return jnp.zeros(sys.qd_size())
    return jnp.zeros(sys.qd_size()).at[0].add(act * sys.gear)


# concretization-handled (haiku basic.py dropout): the traced case is caught on purpose
@jax.jit
def checked_rate(rate, x):
    try:
        if rate < 0 or rate >= 1:
            raise ValueError("rate must be in [0, 1).")
    except jax.errors.ConcretizationTypeError:
        pass
    return x * (1 - rate)


# tuple-default (haiku dropout broadcast_dims, jumanji types.py shape=()): a tuple default is configuration
def transition(reward, shape=(), dims=()):
    for d in dims:
        if d > 1:
            raise ValueError(d)
    return reward + jnp.ones(shape)


@jax.jit
def pick(pred, reward):
    return lax.cond(pred, transition, lambda r: r, reward)


# scan-driver (blackjax util.py run_inference_algorithm): jit of partial(lax.scan, closure) in a driver;
# an eager lax.scan of the new closure compiles it just the same
def run_inference(x0, steps, scale):
    def one_step(state, k):
        new = state * scale + k
        return new, new

    return jax.jit(functools.partial(lax.scan, one_step))(x0, jnp.arange(float(steps)))


# step-handed-to-helper (flax examples/wmt train_and_evaluate): the driver jits its step once per run
# and hands it to the loop that calls it
def eval_step(batch, offset):
    return batch + offset


def evaluate(p_eval_step, batches):
    return [p_eval_step(b) for b in batches]


def train_and_evaluate(batches, offset):
    p_eval_step = jax.jit(functools.partial(eval_step, offset=offset))
    out = evaluate(p_eval_step=p_eval_step, batches=batches)
    return out


# same-value-rebind (pgx shogi.py): a constant rebound at import to the same value, after a call
EMPTY = -1


@jax.jit
def init_board(x):
    return x


INITIAL = init_board(jnp.zeros(3))
EMPTY = jnp.int32(-1)


@jax.jit
def clear(board, i):
    return board.at[i].set(EMPTY)


# notebook-redefinition (jax-md examples/nvt_simulation.py): a later cell rebinds a global and
# defines a new step function; the old one ran once, before
dt = 0.1


def sim_step(i, x):
    return x + dt


def initial_state():
    return 0.0


first_run = lax.fori_loop(0, 3, sim_step, initial_state())
dt = 0.5


def sim_step(i, x):  # noqa: F811 - the notebook's second cell
    return x + dt


def second_run():
    return lax.fori_loop(0, 3, sim_step, initial_state())


# type-registry (jax_md util.py): a registry of types consulted with `in` at trace time
CUSTOM_TYPES = []


def register_type(t):
    global CUSTOM_TYPES
    CUSTOM_TYPES += [t]


@jax.jit
def dispatch(x):
    if type(x) in CUSTOM_TYPES:
        return x
    return x * 2


# shapes-recorded (numpyro contrib/control_flow/scan.py): static shapes appended at trace time
def scan_with_shapes(xs):
    carry_shapes = []

    def body(c, x):
        new = c + x
        if len(carry_shapes) < 1:
            carry_shapes.append([jnp.shape(v) for v in jax.tree.leaves(new)])
        return new, new

    out = lax.scan(body, 0.0, xs)
    return out, carry_shapes


# static-diagnostic (jax_md tpu.py, flax linen/recurrent.py): a warning under a static check, once per trace
@jax.jit
def fold(x):
    if x.shape[0] < 8:
        print("grid may be too small:", x.shape)
    return x.reshape(-1)


# zip-leaves (jax_md simulate.py initialize_momenta): one iteration per pytree leaf
@jax.jit
def momenta(key, tree):
    leaves, treedef = jax.tree.flatten(tree)
    keys = jax.random.split(key, len(leaves))
    out = [jax.random.normal(k, r.shape) for k, r in zip(keys, leaves)]
    return jax.tree.unflatten(treedef, out)


# param-shadows-closure (flax tests/nnx/mutable_array_test.py): the jitted function takes the name as a parameter
def counted():
    params = {"count": jnp.zeros(())}

    @jax.jit
    def f():
        return params["count"]

    f()

    @jax.jit
    def f(params):  # noqa: F811 - the test's second case
        return {"count": params["count"] + 1}

    params = f(params)
    return params["count"]


# test-file-host-sync (jax_md tests/elasticity_test.py): a test loop needs each value to assert on it
# (linted as tests/elasticity_test.py: see test_lint_lookalikes.py)
def converged_cases(xs):
    solve = jax.jit(lambda v: (v * 2, v.sum() > 0))
    seen = 0
    for x in xs:
        out, converged = solve(x)
        if converged:
            seen += 1
    return seen


# eager-path (jax_md partition.py neighbor_list_fn): jnp on Python values in a branch that only the eager
# allocate call takes; under lax.cond `neighbors` is set (the cond traces its branch at the call, after the
# `if neighbors is None: return`), so the branch never runs traced: not flagged.
CUTOFF, BOX = 1.0, 10.0


def neighbor_list_fn(position, neighbors=None):
    def neighbor_fn(pos):
        if neighbors is None:
            if jnp.all(CUTOFF < BOX / 3.0):
                pos = pos + 1.0
        return pos

    if neighbors is None:
        return neighbor_fn(position)
    return lax.cond(jnp.any(position > 0), neighbor_fn, lambda p: p, position)


# partial-static-argnums (jaxopt armijo_sgd.py): jit(partial(f, a, b, c), static_argnums=(0, 1)) makes
# f's 4th and 5th parameters static: the numbers count from the first unbound one
def line_search(fun, unroll, use_jit, goldstein, maxiter, x):
    for _ in range(maxiter):
        x = fun(x)
    if goldstein:
        x = x * 2
    return x


line_search_jit = jax.jit(functools.partial(line_search, jnp.sin, 1, True), static_argnums=(0, 1))


# registry-lookup (distrax utils/transformations.py): an inverse registry read into a local first
_inverse_registry = {"neg": lambda x: -x}


def register_inverse(name, fn):
    _inverse_registry[name] = fn


@jax.jit
def invert(x):
    prim_inv = _inverse_registry["neg"]
    return prim_inv(x)


# outer-closure-driver (blackjax mclmc_adaptation.py): the scan body is defined beside the driver
def adapt(x0, n, scale):
    def step(c, k):
        return c * scale + k, c

    def run_steps(xs, c):
        return jax.jit(functools.partial(lax.scan, step))(c, xs)

    return run_steps(jnp.arange(float(n)), x0)


# negated-table (pgx shogi.py LEGAL_FROM_IDX): -np.ones((10, 81, 8)) filled at import, a 6,480-entry table
FROM_IDX = -np.ones((10, 81, 8), dtype=np.int32)
FROM_IDX[0, 0, 0] = 3
FROM_IDX = jnp.array(FROM_IDX)


@jax.jit
def legal_from(direction, to):
    return FROM_IDX[direction % 10, to]
