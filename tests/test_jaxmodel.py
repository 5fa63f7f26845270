"""The shared model of JAX's transforms, checked row by row against real JAX.

Each row of ``jitscope.jaxmodel`` says what a transform makes of its function's arguments under an
eager caller (``makes``: python / concrete / abstract), how often the function's Python body runs
(``python_runs``) and which arguments it passes through untouched (``in_axes=None``,
``nondiff_argnums``, ``argnums``). Every claim is tested here against the real transform on CPU:
"concrete" means a Python ``if`` on the value works, "abstract" that it raises a concretization
error. docs/lint.md "The tracing model" is the prose form of the same table.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from jitscope.jaxmodel import fixes, known, transforms, values

try:
    from jax import shard_map
except ImportError:  # JAX < 0.7
    from jax.experimental.shard_map import shard_map

MESH = Mesh(np.array(jax.devices()[:1]), ("i",))
CONCRETIZATION = (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError)


def _branches(x):
    if x.sum() > 0:  # bool() of the value: works on a concrete one, raises on an abstract one
        return x * 2.0
    return x * 3.0


def _kind_seen(apply) -> str:
    """'concrete' if Python control flow on the transformed function's argument works, else 'abstract'."""
    try:
        apply(_branches, jnp.ones(3))
    except CONCRETIZATION:
        return "abstract"
    return "concrete"


def _scalar(f):
    return lambda x: f(x).sum()


def _shard_map(f, x):
    return shard_map(f, mesh=MESH, in_specs=P(), out_specs=P())(x)


# How each row's transform is applied from eager code to a function of one array.
APPLY = {
    "jax.jit": lambda f, x: jax.jit(f)(x),
    "jax.pmap": lambda f, x: jax.pmap(f)(x[None]),
    "jax.vmap": lambda f, x: jax.vmap(f)(x[:, None]),
    "jax.grad": lambda f, x: jax.grad(_scalar(f))(x),
    "jax.value_and_grad": lambda f, x: jax.value_and_grad(_scalar(f))(x),
    "jax.jacfwd": lambda f, x: jax.jacfwd(f)(x),
    "jax.jacrev": lambda f, x: jax.jacrev(f)(x),
    "jax.hessian": lambda f, x: jax.hessian(_scalar(f))(x),
    "jax.jvp": lambda f, x: jax.jvp(f, (x,), (x,)),
    "jax.vjp": lambda f, x: jax.vjp(f, x),
    "jax.linearize": lambda f, x: jax.linearize(f, x),
    "jax.checkpoint": lambda f, x: jax.checkpoint(f)(x),
    "jax.eval_shape": lambda f, x: jax.eval_shape(f, x),
    "jax.make_jaxpr": lambda f, x: jax.make_jaxpr(f)(x),
    "jax.shard_map": _shard_map,
    "jax.lax.scan": lambda f, x: jax.lax.scan(lambda c, _: (f(c), None), x, None, length=1),
    "jax.lax.fori_loop": lambda f, x: jax.lax.fori_loop(0, 1, lambda i, c: f(c), x),
    "jax.lax.while_loop": lambda f, x: jax.lax.while_loop(lambda c: False, f, x),
    "jax.lax.cond": lambda f, x: jax.lax.cond(True, f, f, x),
    "jax.lax.switch": lambda f, x: jax.lax.switch(0, [f, f], x),
    "jax.lax.map": lambda f, x: jax.lax.map(f, x[:, None]),
    "jax.lax.associative_scan": lambda f, x: jax.lax.associative_scan(lambda a, b: f(a) + b, x),
    "jax.custom_jvp": lambda f, x: _custom_jvp(f)(x),
    "jax.custom_vjp": lambda f, x: _custom_vjp(f)(x),
}


def _custom_jvp(f):
    g = jax.custom_jvp(f)
    g.defjvp(lambda p, t: (g(p[0]), t[0]))
    return g


def _custom_vjp(f):
    g = jax.custom_vjp(f)
    g.defvjp(lambda x: (g(x), None), lambda _, ct: (ct,))
    return g


def _equinox_apply():
    eqx = pytest.importorskip("equinox")
    return {
        "equinox.filter_jit": lambda f, x: eqx.filter_jit(f)(x),
        "equinox.filter_pmap": lambda f, x: eqx.filter_pmap(f)(x[None]),
        "equinox.filter_vmap": lambda f, x: eqx.filter_vmap(f)(x[:, None]),
        "equinox.filter_grad": lambda f, x: eqx.filter_grad(_scalar(f))(x),
        "equinox.filter_value_and_grad": lambda f, x: eqx.filter_value_and_grad(_scalar(f))(x),
        "equinox.filter_checkpoint": lambda f, x: eqx.filter_checkpoint(f)(x),
        "equinox.filter_eval_shape": lambda f, x: eqx.filter_eval_shape(f, x),
        "equinox.filter_make_jaxpr": lambda f, x: eqx.filter_make_jaxpr(f)(x),
    }


ROWS = sorted({t.qualname for t in known.registry().values() if t.role != "context"})
JAX_ROWS = [q for q in ROWS if q.startswith("jax.")]
EQX_ROWS = [q for q in ROWS if q.startswith("equinox.")]


def _expected_kind(t: transforms.Transform) -> str:
    return "concrete" if t.makes == "python" else t.makes  # a custom_* function runs on what it is given


@pytest.mark.parametrize("name", JAX_ROWS)
def test_makes_matches_real_jax(name):
    t = known.lookup(name)
    assert _kind_seen(APPLY[name]) == _expected_kind(t), (name, t.makes)


@pytest.mark.parametrize("name", EQX_ROWS)
def test_equinox_rows_match_real_equinox(name):
    apply = _equinox_apply()
    assert _kind_seen(apply[name]) == _expected_kind(known.lookup(name)), name


@pytest.mark.parametrize("name", JAX_ROWS)
def test_under_jit_every_row_is_abstract(name):
    """compose(abstract, makes) == abstract: inside jit nothing is concrete (jit(grad(f)), jit(shard_map(f)))."""
    t = known.lookup(name)
    assert t.makes_under("abstract") == "abstract"
    if name in ("jax.pmap", "jax.eval_shape", "jax.make_jaxpr"):
        return  # no value to return from jit (pmap under jit is legal but needs devices per axis)
    apply = APPLY[name]
    assert _kind_seen(lambda f, x: jax.jit(lambda y: _leaves_sum(apply(f, y)))(x)) == "abstract", name


def _leaves_sum(out):
    return sum(jnp.sum(jnp.asarray(leaf)) for leaf in jax.tree_util.tree_leaves(out))


# Bodies of the control-flow rows take their own signatures; the same function object is passed each call.
BODY_CALLS = {
    "jax.lax.scan": lambda f, x: jax.lax.scan(f, x, None, length=1),
    "jax.lax.fori_loop": lambda f, x: jax.lax.fori_loop(0, 1, f, x),
    "jax.lax.while_loop": lambda f, x: jax.lax.while_loop(lambda c: False, f, x),
    "jax.lax.map": lambda f, x: jax.lax.map(f, x[:, None]),
    "jax.lax.associative_scan": lambda f, x: jax.lax.associative_scan(f, x),
}


def _runs(name: str) -> int:
    """How many times the function's Python body runs over three calls with the same function object."""
    count = [0]

    def f(*args):
        count[0] += 1
        if name == "jax.lax.scan":
            return args[0] * 2.0, None
        if name == "jax.lax.associative_scan":
            return args[0] + args[1]
        return args[-1] * 2.0

    apply = BODY_CALLS.get(name, APPLY[name])
    for _ in range(3):
        apply(f, jnp.ones(3))
    return count[0]


@pytest.mark.parametrize("name", [q for q in JAX_ROWS if q not in ("jax.custom_jvp", "jax.custom_vjp")])
def test_python_runs_matches_real_jax(name):
    t = known.lookup(name)
    runs = _runs(name)
    if t.python_runs == "each_call":
        assert runs >= 3, (name, runs)
    else:  # once per compile, or once per function object (the same object here): cached
        assert runs == 1, (name, runs)


def test_a_body_built_per_call_runs_every_call():
    """'once_per_function': a lambda built anew per call of lax.fori_loop is traced again every call."""
    count = [0]

    def body(i, c):
        count[0] += 1
        return c * 2.0

    for _ in range(3):
        jax.lax.fori_loop(0, 2, lambda i, c: body(i, c), jnp.ones(3))
    assert count[0] == 3


def test_in_axes_none_passes_the_value_through():
    """vmap's unmapped argument reaches the function as the caller passed it (concrete from eager code)."""
    assert known.lookup("jax.vmap").axes_option == ("in_axes", 1)
    jax.vmap(lambda x, y: _branches(y) + x, in_axes=(0, None))(jnp.ones(3), jnp.ones(3))  # no error
    with pytest.raises(CONCRETIZATION):
        jax.vmap(lambda x, y: _branches(y) + x, in_axes=(0, 0))(jnp.ones(3), jnp.ones(3))


def test_shard_map_none_in_spec_passes_the_value_through():
    """shard_map's argument whose in-spec is None reaches the function as the caller passed it: a Python bool stays
    a bool, eagerly and under jit (a `P()` entry makes it a shard_map value)."""
    assert known.lookup("jax.shard_map").specs_option == ("in_specs", 2)
    seen = []

    def body(x, flag):
        seen.append(type(flag).__name__)
        return x * 2 if flag else x

    f = shard_map(body, mesh=MESH, in_specs=(P(), None), out_specs=P())
    f(jnp.ones(2), True)
    jax.jit(lambda x: f(x, True))(jnp.ones(2))
    assert seen == ["bool", "bool"]
    with pytest.raises(CONCRETIZATION):
        jax.jit(shard_map(body, mesh=MESH, in_specs=(P(), P()), out_specs=P()))(jnp.ones(2), True)


def test_grad_passes_non_argnums_through():
    assert "jax.grad" in known.DIFFERENTIATING
    jax.grad(lambda x, y: (_branches(y) * x).sum())(jnp.ones(3), jnp.ones(3))  # y untouched: concrete


def test_nondiff_argnums_pass_the_callers_value_through():
    """custom_jvp's nondiff argument is what the caller passed: a Python value stays Python, a tracer stays one."""
    seen = []

    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def f(n, x):
        seen.append(type(n).__name__)
        return x * n

    f.defjvp(lambda n, p, t: (f(n, p[0]), t[0] * n))
    assert known.lookup("jax.custom_jvp").nondiff_option == "nondiff_argnums"
    jax.jit(lambda x: f(2.0, x))(jnp.ones(3))
    jax.jit(lambda n, x: f(n, x))(2.0, jnp.ones(3))
    assert seen[0] == "float" and "Tracer" in seen[1]


def test_custom_rules_run_on_concrete_values_under_eager_grad():
    kinds = {}

    @jax.custom_vjp
    def h(x):
        return x * 2

    def h_fwd(x):
        kinds["fwd"] = bool(x.sum() > 0)  # raises if abstract
        return h(x), x

    def h_bwd(res, g):
        kinds["bwd"] = bool(res.sum() > 0)
        return (g * 2,)

    h.defvjp(h_fwd, h_bwd)
    jax.grad(lambda x: h(x).sum())(jnp.ones(3))
    assert kinds == {"fwd": True, "bwd": True}


def test_jnp_under_jit_makes_tracers_and_ensure_compile_time_eval_does_not():
    def plain(x):
        return x + (1.0 if jnp.zeros(3).sum() > -1 else 2.0)

    def evaluated(x):
        with jax.ensure_compile_time_eval():
            z = jnp.zeros(3)
            if z.sum() > -1:  # concrete inside the block
                return x
        return x

    with pytest.raises(CONCRETIZATION):
        jax.jit(plain)(jnp.ones(3))
    jax.jit(evaluated)(jnp.ones(3))
    assert "jax.ensure_compile_time_eval" in known.CONTEXTS


def test_isinstance_tracer_tells_traced_from_eager():
    assert jax.jit(lambda x: isinstance(x, jax.core.Tracer))(jnp.ones(3))
    assert not isinstance(jnp.ones(3), jax.core.Tracer)


@pytest.mark.parametrize("qualname", ["numpy.ndarray", "numpy.generic", "numpy.floating", "numpy.integer",
                                      "numpy.number", "numpy.bool_", "numpy.float32", "numpy.dtype", "int", "float",
                                      "bool", "complex", "str", "numbers.Number"])
def test_a_tracer_is_no_numpy_or_python_scalar(qualname):
    """values.concrete_type: `isinstance(x, <kind>)` is False for every tracer, so its branch runs only eagerly."""
    import numbers
    kind = {"numbers.Number": numbers.Number}.get(qualname) or (
        getattr(np, qualname[6:]) if qualname.startswith("numpy.") else __builtins__[qualname]
        if isinstance(__builtins__, dict) else getattr(__builtins__, qualname))
    seen = []
    jax.jit(lambda x: seen.append(isinstance(x, kind)) or x)(jnp.ones(3))
    jax.vmap(lambda x: seen.append(isinstance(x, kind)) or x)(jnp.ones(3))
    jax.grad(lambda x: seen.append(isinstance(x, kind)) or x)(1.0)
    assert seen == [False, False, False] and values.concrete_type(qualname)


@pytest.mark.parametrize("qualname", sorted(values.TRACER_ADMITTING_TYPES))
def test_every_tracer_is_a_jax_array(qualname):
    """values.admits_every_tracer: `isinstance(x, jax.Array)` is True for a tracer: its `else` runs on host values."""
    kind = {"jax.Array": jax.Array, "jax.numpy.ndarray": jnp.ndarray, "jax.core.Tracer": jax.core.Tracer}[qualname]
    seen = []
    jax.jit(lambda x: seen.append(isinstance(x, kind)) or x)(jnp.ones(3))
    jax.vmap(lambda x: seen.append(isinstance(x, kind)) or x)(jnp.ones(3))
    assert seen == [True, True] and values.admits_every_tracer(qualname)
    assert not values.concrete_type(qualname)


def test_equinox_module_call_gets_what_its_caller_passes():
    """families/equinox.py MODULE_CALL_DATA_INPUTS: a Python int handed to a Module's `__call__` from inside
    filter_jit (or by filter_jit itself) stays a Python int; only plain `jax.jit` of the int makes it a tracer.
    A non-static int field is a tracer under `jax.jit`, a Python int under filter_jit or `eqx.field(static=True)`."""
    eqx = pytest.importorskip("equinox")
    seen: list = []

    class M(eqx.Module):
        w: jax.Array
        n: int
        s: int = eqx.field(static=True, default=2)

        def __call__(self, x, k):
            seen.append((type(k).__name__, isinstance(self.n, jax.core.Tracer), isinstance(self.s, jax.core.Tracer)))
            return x * self.w

    m, x = M(jnp.ones(3), 3), jnp.ones(3)
    eqx.filter_jit(lambda mod, v: mod(v, 4))(m, x)
    eqx.filter_jit(m)(x, 4)
    jax.jit(lambda mod, v, k: mod(v, k))(m, x, 4)
    jax.jit(lambda mod, v: mod(v, 4))(m, x)
    assert seen[0] == ("int", False, False) and seen[1] == ("int", False, False)
    assert seen[2][0] != "int" and seen[2][1:] == (True, False)  # jit traces the int argument and the int field
    assert seen[3] == ("int", True, False)  # a literal from inside the traced function: a Python int
    from jitscope.jaxmodel import families
    assert families.MODULE_CALL_DATA_INPUTS == 1


def test_haiku_module_call_runs_under_the_jit_of_apply():
    """families/haiku.py MODULE_BASES: an `hk.Module`'s `__call__` runs inside the transformed function, so under
    `jax.jit(model.apply)` its data input and its parameters are tracers, and a Python bool its caller passes (the
    module-call convention's other inputs) stays a Python bool."""
    hk = pytest.importorskip("haiku")
    seen: list = []

    class Scale(hk.Module):
        def __call__(self, x, is_training):
            w = hk.get_parameter("w", [], init=jnp.ones)
            seen.append((isinstance(x, jax.core.Tracer), isinstance(w, jax.core.Tracer), type(is_training).__name__))
            return w * x

    model = hk.transform(lambda x: Scale()(x, True))
    x = jnp.ones(3)
    params = model.init(jax.random.PRNGKey(0), x)
    seen.clear()
    model.apply(params, None, x)
    jax.jit(model.apply)(params, None, x)
    assert seen == [(False, False, "bool"), (True, True, "bool")], seen
    from jitscope.jaxmodel import families
    assert "haiku.Module" in families.HAIKU_MODULE_BASES
    assert f"{hk.Module.__module__}.Module" in families.HAIKU_MODULE_BASES  # the class's own module path too


def test_every_row_is_documented_and_tested():
    for t in known.registry().values():
        assert t.doc.startswith("https://"), t.qualname
    tested = set(APPLY) | {q for q in ROWS if q.startswith(("equinox.", "flax."))}
    assert set(ROWS) <= tested, set(ROWS) - tested


def test_compose_abstract_wins():
    assert transforms.compose("abstract", "concrete") == "abstract"
    assert transforms.compose("concrete", "python") == "concrete"
    assert transforms.compose("python", "python") == "python"


def test_derived_sets():
    assert "jax.jit" in known.COMPILING and "jax.vmap" not in known.COMPILING
    assert known.BODIES["jax.lax.scan"] == ((0,), ("f",))
    assert "jax.eval_shape" in known.TRACE_ONLY and "jax.custom_jvp" in known.CUSTOM
    assert "jax.custom_jvp" not in known.WRAPPERS


def test_fix_texts_use_the_wrappers_own_options():
    assert "static_argnames" in fixes.make_static("n", "jax.jit")
    assert "static_arg" not in fixes.make_static("lr", "equinox.filter_jit")
    assert "static_arg" not in fixes.make_traced("lr", "equinox.filter_jit")
    assert known.wrapper_options("equinox.filter_jit")[0] == ()


def test_jaxmodel_imports_no_jax():
    code = "import sys, jitscope.jaxmodel.known as k, jitscope.jaxmodel.fixes; k.registry(); print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_dtype_predicates_are_concrete_under_jit():
    """Each call of values.DTYPE_PREDICATES answers from the dtype, shape or type: a Python value even on an
    abstract tracer, so a Python `if` on it works under jit (jnp on the value itself would raise)."""
    calls = {
        "jax.numpy.isdtype": lambda x: jnp.isdtype(x.dtype, "real floating"),
        "jax.numpy.issubdtype": lambda x: jnp.issubdtype(x.dtype, jnp.floating),
        "jax.dtypes.issubdtype": lambda x: jax.dtypes.issubdtype(x.dtype, jnp.floating),
        "jax.numpy.iscomplexobj": jnp.iscomplexobj, "jax.numpy.isrealobj": jnp.isrealobj,
        "jax.numpy.result_type": lambda x: jnp.result_type(x) == jnp.float32,
        "jax.dtypes.result_type": lambda x: jax.dtypes.result_type(x) == jnp.float32,
        "jax.numpy.promote_types": lambda x: jnp.promote_types(x.dtype, jnp.int32) == jnp.float32,
        "jax.numpy.can_cast": lambda x: jnp.can_cast(x.dtype, jnp.float64),
        "jax.numpy.dtype": lambda x: jnp.dtype(x.dtype) == jnp.float32,
        "jax.numpy.iinfo": lambda x: jnp.iinfo(jnp.int32).max > 0,
        "jax.numpy.finfo": lambda x: jnp.finfo(x.dtype).eps > 0,
        "jax.numpy.isscalar": jnp.isscalar,
        "jax.dtypes.canonicalize_dtype": lambda x: jax.dtypes.canonicalize_dtype(x.dtype) == jnp.float32,
        "jax.numpy.shape": lambda x: jnp.shape(x)[0] == 3, "jax.numpy.ndim": lambda x: jnp.ndim(x) == 1,
        "jax.numpy.size": lambda x: jnp.size(x) == 3,
        "jax.numpy.iterable": jnp.iterable,
        "jax.lax.dtype": lambda x: jax.lax.dtype(x) == jnp.float32,
        "jax.dtypes.itemsize_bits": lambda x: jax.dtypes.itemsize_bits(x.dtype) == 32,
        "jax.dtypes.scalar_type_of": lambda x: jax.dtypes.scalar_type_of(x) is float,
        "numpy.isdtype": lambda x: np.isdtype(x.dtype, "real floating"),
        "numpy.iterable": np.iterable,
        "numpy.issubdtype": lambda x: np.issubdtype(x.dtype, np.floating),
        "numpy.iscomplexobj": np.iscomplexobj, "numpy.isrealobj": np.isrealobj,
        "numpy.result_type": lambda x: np.result_type(x.dtype) == np.float32,
        "numpy.dtype": lambda x: np.dtype(x.dtype) == np.float32,
        "numpy.shape": lambda x: np.shape(x)[0] == 3, "numpy.ndim": lambda x: np.ndim(x) == 1,
    }
    assert set(calls) == values.DTYPE_PREDICATES
    for name, pred in calls.items():
        if name == "numpy.isdtype" and not hasattr(np, "isdtype"):
            continue  # NumPy < 2
        if name.startswith("jax.") and _jax_attr(name) is None:
            continue  # not in this JAX version

        def f(x, pred=pred):
            return x * 2 if pred(x) else x  # a Python `if`: raises if the predicate were a tracer

        jax.jit(f)(jnp.ones(3))
    with pytest.raises(CONCRETIZATION):
        jax.jit(lambda x: x if jnp.all(x > 0) else -x)(jnp.ones(3))


def _jax_attr(q):
    obj = jax
    for part in q.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _python_valued_callables():
    """Walk the public callables of jnp, lax and jax.dtypes; call each under jit on a traced float array (or its
    dtype, or two of either, the first calling convention JAX accepts) and keep those whose result holds no
    tracer and is a Python value (a bool, int, tuple, dtype or type: not a function or context manager)."""
    import inspect
    import warnings

    found = {}
    conventions = (lambda x: (x,), lambda x: (x.dtype,), lambda x: (x, x), lambda x: (x.dtype, x.dtype),
                   lambda x: (x.dtype, jnp.floating))
    fns = [(prefix + name, getattr(mod, name))
           for mod, prefix in ((jnp, "jax.numpy."), (jax.lax, "jax.lax."), (jax.dtypes, "jax.dtypes."))
           for name in sorted(dir(mod)) if not name.startswith("_")]

    def probe_all(x):  # one trace for all of them: each call sees the same abstract tracer
        for q, fn in fns:
            if inspect.isclass(fn) or inspect.ismodule(fn) or not callable(fn):
                continue
            for args in conventions:
                try:
                    out = fn(*args(x))
                except Exception:  # noqa: BLE001, S112 - this calling convention is not the function's
                    continue
                leaves = jax.tree_util.tree_leaves(out)
                if not any(isinstance(v, jax.core.Tracer) for v in leaves) and (
                        isinstance(out, (bool, int, tuple, np.dtype, type))):
                    found[q] = type(out).__name__
                break
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jax.jit(probe_all)(jnp.ones(3))
    return found


def test_python_valued_jax_callables_are_dtype_predicates():
    """Which jnp/lax/jax.dtypes functions return a Python value on a traced argument is read from JAX itself:
    each one the walk finds (`jnp.iterable`, `jnp.ndim`, `lax.dtype`, ...) is a row of values.DTYPE_PREDICATES,
    so `if not jnp.iterable(k):` under jit is no bool() of a tracer; each row the walk can call is found."""
    found = _python_valued_callables()
    assert "jax.numpy.iterable" in found and "jax.numpy.ndim" in found  # the walk does find them
    assert "jax.numpy.sum" not in found and "jax.numpy.any" not in found  # array results are not Python values
    assert set(found) <= values.DTYPE_PREDICATES, set(found) - values.DTYPE_PREDICATES
    import inspect

    callable_rows = {q for q in values.DTYPE_PREDICATES if q.startswith("jax.") and _jax_attr(q) is not None
                     and not inspect.isclass(_jax_attr(q))}  # jnp.dtype, jnp.finfo, jnp.iinfo are classes
    assert callable_rows <= set(found), callable_rows - set(found)


def test_type_queries_answer_in_python_under_jit():
    """Each builtin of values.TYPE_QUERIES returns a Python value on a tracer: a builtin reduction over them
    (`any(isinstance(v, jax.Array) for v in x)`) stages no JAX op, unlike one over the items themselves."""
    calls = {"isinstance": lambda v: isinstance(v, jax.Array), "issubclass": lambda v: issubclass(type(v), object),
             "callable": callable, "hasattr": lambda v: hasattr(v, "shape"), "type": lambda v: type(v) is int,
             "len": lambda v: len(v) == 3, "id": lambda v: id(v) > 0}
    assert set(calls) == values.TYPE_QUERIES
    for query in calls.values():
        seen = []
        jaxpr = jax.make_jaxpr(lambda x, q=query, seen=seen: seen.append(any(q(v) for v in [x, x])) or x)(jnp.ones(3))
        assert type(seen[0]) is bool and not jaxpr.eqns
    assert jax.make_jaxpr(lambda x: sum(v * 2 for v in x))(jnp.ones(3)).eqns  # items that are arrays: staged ops


@pytest.mark.parametrize("family", ["equinox", "nnx"])
def test_static_field_bases_key_the_cache_on_each_instances_function_objects(family):
    """families.STATIC_FIELD_BASES: a function object stored per instance is a new cache key per instance."""
    from jitscope.jaxmodel import families

    traces = []
    if family == "equinox":
        eqx = pytest.importorskip("equinox")

        assert "equinox.Module" in families.STATIC_FIELD_BASES

        class M(eqx.Module):
            norm: object
            w: jax.Array

            def __init__(self, norm):
                self.norm = norm
                self.w = jnp.ones(2)

        jit, read = eqx.filter_jit, (lambda m: m.w)
    else:
        nnx = pytest.importorskip("flax.nnx")

        assert "flax.nnx.Module" in families.STATIC_FIELD_BASES

        class M(nnx.Module):  # type: ignore[no-redef]
            def __init__(self, norm):
                self.norm = norm
                self.w = nnx.Param(jnp.ones(2))

        jit, read = nnx.jit, (lambda m: m.w[...])

    @jit
    def f(m, x):
        traces.append(1)
        return m.norm(read(m)) * x

    for _ in range(3):
        f(M(functools.partial(jnp.sum, axis=0)), 1.0)  # a new partial per instance: a trace per instance
    assert len(traces) == 3
    shared = functools.partial(jnp.sum, axis=0)
    for _ in range(3):
        f(M(shared), 1.0)  # one object shared by every instance: one trace
    assert len(traces) == 4


def test_unhashable_when_bound_a_linen_module_hashes_only_unbound():
    """families.UNHASHABLE_WHEN_BOUND: a linen Module hashes by its fields, and not at all once bound."""
    nn = pytest.importorskip("flax.linen")
    from jitscope.jaxmodel import families

    assert "flax.linen.Module" in families.UNHASHABLE_WHEN_BOUND

    class M(nn.Module):
        n: int = 2

        @nn.compact
        def __call__(self, x):
            return nn.Dense(self.n)(x)

    assert hash(M()) == hash(M())  # by fields: equal unbound modules share a cache entry
    bound = M().bind(M().init(jax.random.key(0), jnp.ones((1, 2))))
    with pytest.raises(TypeError, match="hold variables"):
        hash(bound)
