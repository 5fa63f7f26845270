"""Which function a wrapper traces, and with what: wrong beliefs found on the tuning libraries (issue #25).

Each class of wrong finding read on /work/corpus/tuning/libs3 is a belief of the model about JAX or about the
code's names, fixed in the model; each test runs the quiet code under real JAX (it works) and a look-alike
that fails under real JAX, which lint must still report:

- `jax.vmap(f, (0, None))` calls `f` with two positional arguments: a third, defaulted parameter keeps its
  Python default (a tuple `in_axes` has one entry per positional argument, JAX raises otherwise);
- `if a: def model(...) ... jax.jit(model, static_argnums=2) else: def model(...) ... jax.jit(model)`: each
  `jax.jit(model)` traces the def that reaches it, not every def of the name;
- one-argument `jnp.where(c)` (like `jnp.nonzero`) returns a Python tuple of index arrays, one per dimension;
- `jax.jit(self._env.step)` traces the step of the object `self` holds, not the enclosing class's own `step`;
- `lax.cond(p, partial(f, max_occupancy=n), ...)` calls `f` with `max_occupancy` on every call: its
  `if max_occupancy is None:` branch does not run there;
- JS503: a jitted closure whose name is bound again is not called after that, so a later rebinding of a
  variable it read is not stale for it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.jaxmodel import values
from jitscope.lint import lint_source

ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError,
          jax.errors.TracerIntegerConversionError, TypeError)


def _run(src: str) -> dict:
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    return namespace


def _hits(src: str, code: str | None = None) -> list[tuple[str, int, str]]:
    return [(f.code, f.location.line, f.severity) for f in lint_source(src, "m.py")
            if code is None or f.code == code]


VMAP_DEFAULT = '''import jax
import jax.numpy as jnp


def features(pos, atoms, ndim=3):
    assert atoms.shape[1] == ndim
    return jnp.reshape(pos, [-1, 1, ndim]) - atoms[None, ...]


def energy(positions, atoms):
    return jax.vmap(features, (0, None))(positions, atoms)


def scaled(x, n, k=2):
    return jnp.reshape(x, (n, -1)) * k


def mapped(xs, ns, ks):
    return jax.vmap(scaled, (0, 0, None))(xs, ns, ks)
'''


def test_vmap_tuple_axes_leave_a_defaulted_parameter_its_python_default():
    ns = _run(VMAP_DEFAULT)
    pos, atoms = jnp.ones((4, 6)), jnp.ones((5, 3))
    assert ns["energy"](pos, atoms).shape == (4, 2, 5, 3)
    assert jax.jit(ns["energy"])(pos, atoms).shape == (4, 2, 5, 3)
    with pytest.raises(ERRORS):  # the look-alike: `n` is mapped, an abstract tracer used as a shape
        ns["mapped"](jnp.ones((2, 4)), jnp.array([2, 2]), 3)
    hits = _hits(VMAP_DEFAULT)
    assert [h for h in hits if h[1] < 13] == [], hits
    assert [h[:2] for h in hits if h[1] >= 13] == [("JS303", 15)], hits


REDEFINED = '''import jax
import jax.numpy as jnp


def get_model(background):
    if background:
        def model(params, key, length=4):
            x = jax.random.normal(key, (length, length))
            return x * params
        return jax.jit(model, static_argnums=2)
    else:
        def model(inputs, params, key):
            if key.sum() > 0:
                return inputs
            return inputs * params
        return jax.jit(model)
'''


def test_each_jit_traces_the_def_that_reaches_it():
    ns = _run(REDEFINED)
    key = jax.random.key(0)
    assert ns["get_model"](True)(2.0, key, 3).shape == (3, 3)
    with pytest.raises(ERRORS):  # the other def: its `if` on a traced argument fails under its jit
        ns["get_model"](False)(jnp.ones(3), 2.0, jnp.ones(2))
    assert _hits(REDEFINED) == [("JS101", 13, "error")], _hits(REDEFINED)


WHERE = '''import jax
import jax.numpy as jnp


@jax.jit
def indices(cond):
    return tuple(idx * 2 for idx in jnp.where(cond, size=4, fill_value=0))


@jax.jit
def rows(cond, x):
    return [r * 2 for r in jnp.where(cond, x, 0.0)]
'''


def test_one_argument_where_is_a_tuple_of_index_arrays():
    ns = _run(WHERE)
    out = ns["indices"](jnp.eye(3, dtype=bool))
    assert type(out) is tuple and len(out) == 2  # one index array per dimension, not per row
    assert len(ns["rows"](jnp.ones(5, bool), jnp.ones(5))) == 5  # three arguments: one array, iterated by rows
    assert [h[:2] for h in _hits(WHERE, "JS202")] == [("JS202", 12)], _hits(WHERE)


@pytest.mark.parametrize("q", sorted(values.TUPLE_RETURNING | values.TUPLE_RETURNING_ONE_ARG))
def test_tuple_returning_functions_return_python_containers_under_jit(q):
    fn = {"jax.numpy.nonzero": lambda x: jnp.nonzero(x > 0, size=2),
          "jax.numpy.where": lambda x: jnp.where(x > 0, size=2),
          "jax.numpy.unravel_index": lambda x: jnp.unravel_index(jnp.argmax(x), x.shape),
          "jax.numpy.triu_indices": lambda x: jnp.triu_indices(3),
          "jax.numpy.tril_indices": lambda x: jnp.tril_indices(3),
          "jax.numpy.diag_indices": lambda x: jnp.diag_indices(3),
          "jax.numpy.diag_indices_from": lambda x: jnp.diag_indices_from(x),
          "jax.numpy.triu_indices_from": lambda x: jnp.triu_indices_from(x),
          "jax.numpy.tril_indices_from": lambda x: jnp.tril_indices_from(x),
          "jax.numpy.divmod": lambda x: jnp.divmod(x, 2.0),
          "jax.numpy.frexp": jnp.frexp,
          "jax.numpy.modf": jnp.modf,
          "jax.numpy.linalg.eigh": lambda x: jnp.linalg.eigh(x @ x.T),
          "jax.numpy.linalg.slogdet": lambda x: jnp.linalg.slogdet(x + 3 * jnp.eye(3)),
          "jax.lax.top_k": lambda x: jax.lax.top_k(x.ravel(), 2)}[q]
    seen = []
    jax.jit(lambda x: seen.append(type(fn(x))) or 0)(jnp.arange(9.0).reshape(3, 3))
    assert seen and issubclass(seen[0], (tuple, list)), (q, seen)  # lax.top_k gives a list


HELD = '''import jax
import jax.numpy as jnp


class Env:
    def step(self, x):
        return jnp.where(x.sum() > 0, x, -x)


class Broken:
    def step(self, x):
        if x.sum() > 0:
            return x
        return -x


class Wrapper:
    def __init__(self, env):
        self._env = env
        self._jitted_step = jax.jit(self._env.step)

    def step(self, x):
        out = self._jitted_step(x)
        if jnp.all(out > 0):
            return None
        return out
'''


def test_a_held_objects_method_is_not_the_enclosing_classs_own():
    ns = _run(HELD)
    wrapper = ns["Wrapper"](ns["Env"]())
    assert wrapper.step(-jnp.ones(2)) is None  # eager: its `if` runs on a concrete array
    with pytest.raises(ERRORS):  # another class's `step` may be the one held: its `if` fails under jit
        ns["Wrapper"](ns["Broken"]()).step(jnp.ones(2))
    # which object's `step` is held the source does not say (`Env.step` and `Broken.step` both match the name):
    # this one being traced is a guess, said at info (tests/test_lint_proof_chain.py)
    assert _hits(HELD) == [("JS101", 12, "info")], _hits(HELD)


COND_PARTIAL = '''from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def make(capacity):
    def neighbor_fn(position, max_occupancy=None):
        occ = jnp.sum(position > 0)
        if max_occupancy is None:
            max_occupancy = int(occ * capacity)
        return position[:max_occupancy]

    def update(position, nbrs):
        if nbrs is None:
            return neighbor_fn(position)
        fn = partial(neighbor_fn, max_occupancy=nbrs)
        return lax.cond(jnp.any(position > 1), fn, lambda x: x[:nbrs], position)
    return update


def make_unbounded(capacity):
    def grow(position, limit=None):
        if limit is None:
            limit = int(jnp.sum(position > 0) * capacity)
        return position[:limit]

    def update(position):
        unbounded = partial(grow, limit=None)
        return lax.cond(jnp.any(position > 1), unbounded, lambda x: x[:1], position)
    return update
'''


def test_a_keyword_bound_by_partial_is_passed_on_every_call_through_it():
    ns = _run(COND_PARTIAL)
    update = ns["make"](1)
    assert update(jnp.arange(4.0), None).shape == (3,)  # eager allocate: int() of a concrete value
    assert update(jnp.arange(4.0), 2).shape == (2,)  # the cond way: max_occupancy passed
    with pytest.raises(ERRORS):  # bound to None, the branch runs under the cond: int() of a tracer
        ns["make_unbounded"](1)(jnp.arange(4.0))
    assert [h[:2] for h in _hits(COND_PARTIAL)] == [("JS103", 26)], _hits(COND_PARTIAL)


STALE = '''import jax
import jax.numpy as jnp


def aperture(centres, n):
    coords = jnp.linspace(0.0, 1.0, n)
    shift = jax.jit(lambda c: coords - c)
    first = [shift(c) for c in centres]
    coords = jnp.linspace(0.0, 2.0, n)
    shift = jax.jit(lambda c: coords + c)
    return first, [shift(c) for c in centres]


def train(xs):
    lr = 1.0
    step = jax.jit(lambda x: x * lr)
    out = []
    for x in xs:
        out.append(step(x))
        lr = lr * 0.5
    return out
'''


def test_a_jitted_closure_bound_again_is_not_called_stale():
    ns = _run(STALE)
    first, second = ns["aperture"](jnp.array([0.5]), 3)
    assert float(second[0][-1]) == 2.5  # the second closure traced the new coords
    assert [float(v) for v in ns["train"](jnp.ones(3))] == [1.0, 1.0, 1.0]  # the look-alike: lr stays 1.0
    assert [h[:2] for h in _hits(STALE, "JS503")] == [("JS503", 20)], _hits(STALE)


CLOSURE_GUARD = '''import jax.numpy as jnp
from jax import lax


def make(capacity):
    def neighbor_list_fn(position, neighbors=None):
        def neighbor_fn(position):
            if neighbors is None:
                if jnp.all(position < 3.0):
                    return position * capacity
            return position

        nbrs = neighbors
        if nbrs is None:
            return neighbor_fn(position)
        return lax.cond(jnp.any(position > nbrs), neighbor_fn, lambda x: x, position)
    return neighbor_list_fn


def make_unguarded(capacity):
    def neighbor_list_fn(position, neighbors=None):
        def neighbor_fn(position):
            if neighbors is None:
                if jnp.all(position < 3.0):
                    return position * capacity
            return position

        return lax.cond(jnp.any(position > 1.0), neighbor_fn, lambda x: x, position)
    return neighbor_list_fn
'''


def test_a_body_traced_after_a_none_guard_sees_its_free_variable_not_none():
    """lax.cond traces its branches during the call: `neighbors`, read by the branch, holds its value at the
    call, where `if nbrs is None: return` (with `nbrs = neighbors`) proved it not None."""
    ns = _run(CLOSURE_GUARD)
    fn = ns["make"](2.0)
    assert fn(jnp.arange(3.0)).tolist() == [0.0, 2.0, 4.0]  # the eager path: a concrete `if`
    assert fn(jnp.arange(3.0), 1.0).tolist() == [0.0, 1.0, 2.0]  # the cond way: the branch is skipped
    with pytest.raises(ERRORS):  # unguarded: the branch runs under the cond on an abstract value
        ns["make_unguarded"](2.0)(jnp.arange(3.0))
    assert [h[:2] for h in _hits(CLOSURE_GUARD)] == [("JS101", 24)], _hits(CLOSURE_GUARD)


PYTREE_ITEM = '''import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Named:
    array: jax.Array

    def item(self):
        return self.array.item()

    def __float__(self):
        return float(self.array)

    def positive(self):
        if self.array.sum() > 0:
            return self
        return Named(-self.array)
'''


def test_a_pytree_method_returning_a_python_value_is_made_for_the_host():
    """`x.item()`, `x.tolist()` and the conversion protocol (`__float__`) return Python values: a pytree's method
    that returns one concretizes its fields on purpose (an accessor), so it is not reported as traced code; a
    method that branches on a field is still reported."""
    ns = _run(PYTREE_ITEM)
    named = ns["Named"](jnp.ones(()))
    assert named.item() == 1.0 and float(named) == 1.0 and named.positive() is named
    with pytest.raises(ERRORS):
        jax.jit(lambda n: n.item())(named)
    with pytest.raises(ERRORS):
        jax.jit(lambda n: n.positive())(named)
    assert [h[:2] for h in _hits(PYTREE_ITEM)] == [("JS101", 19)], _hits(PYTREE_ITEM)


ITEMS = '''import jax
import jax.numpy as jnp


@jax.jit
def eig_sign(x):
    w, v = jnp.linalg.eigh(x)
    if w[0] > 0:
        return v
    return x


@jax.jit
def first_index(x):
    idx = jnp.nonzero(x > 0, size=2)[0]
    if idx[0] > 0:
        return x
    return -x


@jax.jit
def halves(x):
    a, b = jnp.split(x, 2)
    if a.sum() > 0:
        return b
    return a


@jax.jit
def per_axis(x):
    for r in jnp.nonzero(x > 0, size=2):
        if r.sum() > 0:
            return r
    return x
'''


@pytest.mark.parametrize("name", ["eig_sign", "first_index", "halves", "per_axis"])
def test_the_arrays_in_a_tuple_result_are_traced(name):
    """The tuple is Python; its items are jnp results, abstract under jit: an `if` on one fails on every way."""
    ns = _run(ITEMS)
    with pytest.raises(ERRORS):
        ns[name](jnp.eye(4) + 1.0 if name == "eig_sign" else jnp.arange(1.0, 5.0))
    assert [h for h in _hits(ITEMS) if h[0] == "JS101"] == [
        ("JS101", 8, "error"), ("JS101", 16, "error"), ("JS101", 24, "error"), ("JS101", 32, "error")], _hits(ITEMS)


APPLIED = '''import jax
import jax.numpy as jnp


def folded(x, n=3):
    return jnp.reshape(x, (n, -1))


def rows(x, n=3):
    return jnp.reshape(x, (n, -1))


def use(xs, x):
    a = jax.vmap(folded)(xs)
    h = jax.jit(rows)
    return a, h(x)


def blocks(x, n=2):
    return jnp.reshape(x, (n, -1))


def use_mapped(xs, ns):
    h = jax.vmap(blocks)
    return h(xs, n=ns)
'''


def test_a_wrapper_applied_where_every_call_is_seen_leaves_unpassed_defaults_python():
    """`jax.vmap(f)(xs)` and `h = jax.jit(g); h(x)` in a function: every traced call is seen, none passes `n`,
    so it holds its Python default 3 (JAX traces only the arguments a call passes). A call that passes it
    (mapped, by keyword) makes it abstract, and that is still reported."""
    ns = _run(APPLIED)
    a, b = ns["use"](jnp.ones((2, 6)), jnp.ones(6))
    assert a.shape == (2, 3, 2) and b.shape == (3, 2)
    with pytest.raises(ERRORS):
        ns["use_mapped"](jnp.ones((2, 4)), jnp.array([2, 2]))
    assert [h[:2] for h in _hits(APPLIED)] == [("JS303", 20)], _hits(APPLIED)


LATE = '''import jax


def outer(x):
    def f(y):
        return y

    def g():
        return jax.jit(f)

    def f(y):
        if y.sum() > 0:
            return y
        return -y
    return g()(x)
'''


def test_a_reference_in_a_nested_function_may_name_a_later_def():
    """A nested function reads `f` when it runs (late binding): `g()` here jits the second `f`."""
    with pytest.raises(ERRORS):
        _run(LATE)["outer"](jnp.ones(2))
    assert [h[:2] for h in _hits(LATE)] == [("JS101", 12)], _hits(LATE)


HANDLE = '''import jax
import jax.numpy as jnp
import numpy as np


def _evidence(x, block=None):
    if block is None:
        return jnp.asarray(np.sort(np.asarray(x)))
    return x * block


_evidence_jit = jax.jit(_evidence)


def batches(x, block=None):
    kernel = _evidence if block is None else _evidence_jit
    return [kernel(x, block=block) for _ in range(2)]


def _summary(x, block=None):
    if block is None:
        return jnp.asarray(np.sort(np.asarray(x)))
    return x * block


_summary_jit = jax.jit(_summary)


def summaries(x, block=None):
    kernel = _summary_jit if block is None else _summary
    return kernel(x, block=block)
'''


def test_a_private_jit_handle_chosen_only_when_an_argument_is_set_passes_it_set():
    """`kernel = f if block is None else f_jit`: the jitted kernel runs only where `block` is not None, so its
    `if block is None:` NumPy path is eager only. The look-alike picks the jitted kernel exactly when `block`
    is None: there the NumPy path runs under jit, and fails."""
    ns = _run(HANDLE)
    x = jnp.array([3.0, 1.0, 2.0])
    assert [v.tolist() for v in ns["batches"](x)] == [[1.0, 2.0, 3.0]] * 2
    assert ns["batches"](x, 2.0)[0].tolist() == [6.0, 2.0, 4.0]
    with pytest.raises(jax.errors.TracerArrayConversionError):
        ns["summaries"](x)
    assert [h[:2] for h in _hits(HANDLE)] == [("JS104", 22)], _hits(HANDLE)


NONDIFF_NAMES_SRC = '''from functools import partial

import jax


@partial(jax.custom_vjp, nondiff_argnames=("flag",))
def scaled(x, flag):
    return x * 2.0 if flag else x


def scaled_fwd(x, flag):
    if flag:
        return x * 2.0, None
    return x, None


def scaled_bwd(flag, res, g):
    return (g * 2.0 if flag else g,)


scaled.defvjp(scaled_fwd, scaled_bwd)


@partial(jax.custom_vjp, nondiff_argnames=("flag",))
def signed(x, flag):
    return x


def signed_fwd(x, flag):
    if x.sum() > 0:
        return x, None
    return -x, None


def signed_bwd(flag, res, g):
    return (g,)


signed.defvjp(signed_fwd, signed_bwd)


@jax.jit
def loss(x):
    return jax.grad(lambda v: scaled(v, True).sum())(x) + jax.grad(lambda v: signed(v, True).sum())(x)
'''


def test_custom_vjp_nondiff_argnames_reach_the_rules_as_the_caller_passed_them():
    """`nondiff_argnames=("flag",)` is `nondiff_argnums` by name: the fwd rule gets `flag` as the caller passed it
    (a Python bool here) and the bwd rule gets it first, so `if flag:` in either works under jit; an `if` on the
    differentiated argument in a fwd rule is still a tracer's bool (reported, and it fails under real jit)."""
    lines = [(f.code, f.location.line) for f in lint_source(NONDIFF_NAMES_SRC, "m.py") if f.code == "JS101"]
    assert lines == [("JS101", 30)], lines
    ns: dict = {}
    exec(compile(NONDIFF_NAMES_SRC, "m.py", "exec"), ns)
    x = jnp.ones(2)
    assert jax.jit(jax.grad(lambda v: ns["scaled"](v, True).sum()))(x).tolist() == [2.0, 2.0]
    with pytest.raises(ERRORS):
        ns["loss"](x)
