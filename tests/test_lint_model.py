"""The tracing model decides what lint reports, and how sure it is (issue #25 items 1 and 2).

tests/lint_lookalikes/model_cases.py holds one case per row or class of the model. Each is run
under real JAX here (nothing mocked): code that works must draw no finding, code that fails on
some way it is reached a warning, code that fails on every way an error. The previous linter
reported every one of the quiet cases as an error.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitscope import lint
from jitscope.lint import lint_source

PATH = Path(__file__).resolve().parent / "lint_lookalikes" / "model_cases.py"
X = jnp.arange(1.0, 4.0)
ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError)


def _module():
    spec = importlib.util.spec_from_file_location("lint_lookalike_model_cases", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _span(name: str) -> tuple[int, int]:
    tree = ast.parse(PATH.read_text())
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name:
            return n.lineno, n.end_lineno
    raise AssertionError(name)


def _findings(name: str):
    first, last = _span(name)
    return [f for f in lint_source(PATH.read_bytes(), "lookalikes/model_cases.py") if first <= f.location.line <= last]


# (function linted, how it runs under real JAX, what lint must say)
CASES = [
    ("grad_eager", lambda m: m.run_grad_eager(), None),
    ("grad_jitted", lambda m: m.run_grad_jitted(2.0), "error"),
    ("smooth", lambda m: m.run_vjp(X), None),
    ("shard_body", lambda m: m.run_shard_map(X), None),
    ("per_example", lambda m: m.run_vmap(X), None),
    ("scaled", lambda m: m.run_axes(X, 2, False), "warning"),
    ("total", lambda m: m.total([X, X]), None),
    ("_repeat", lambda m: m.run_repeat(X), None),
    ("clipped_jvp", lambda m: m.run_clipped(X), None),
    ("evaluated", lambda m: m.evaluated(X), None),
    ("guarded", lambda m: m.guarded(X), None),
    ("eager_only", lambda m: jax.jit(m.eager_only)(X), None),
    ("guarded_numpy", lambda m: m.run_guarded_numpy(X), None),
    ("count_body", lambda m: m.run_count(X), None),
    ("_helper", lambda m: m.run_helper(X), "error"),
    ("shared", lambda m: m.run_shared(X), "warning"),
    ("mapped_sign", lambda m: m.run_mapped_sign(X), "error"),
    ("differentiated", lambda m: m.run_differentiated(2.0), "error"),
    ("mass", lambda m: m.total_mass(m.Body(X, X)), "warning"),
    ("size", lambda m: m.scaled_board(m.Board(jnp.ones(4))), "warning"),
    ("dtype_branch", lambda m: m.dtype_branch(X), None),
    ("boxed", lambda m: (m.boxed((X, X)), m.boxed([]), m.boxed(X)), None),
    ("Scaler", lambda m: m.Scaler().run(X, 2), None),
    ("early", lambda m: m.early(X), None),
    ("remade", lambda m: m.remade(X), None),
    ("fresh_acc", lambda m: m.fresh_acc(X, [1]), None),
    ("seq_scaled", lambda m: (m.seq_scaled(X, [X, X]), m.seq_scaled(X, X)), None),
    ("windowed", lambda m: (m.windowed(X, (2, 3)), m.windowed(X, [1, 1, 1])), None),
    ("Gains", lambda m: (m.gained(m.Gains(X, {}), X), m.gained(m.Gains(X, {"k": X}), X)), None),
    ("gained", lambda m: m.gained(m.Gains(X, {"k": X, "j": X}), X), None),
    ("typed_pick", lambda m: (m.typed_pick(X), m.typed_pick((X, 2.0))), None),
]


@pytest.mark.parametrize("name, run, verdict", CASES, ids=[c[0] for c in CASES])
def test_real_jax_agrees(name, run, verdict):
    mod = _module()
    if verdict == "error":
        with pytest.raises(ERRORS):
            run(mod)
    elif verdict == "warning":  # fails on one way it is reached, works on another
        if name == "scaled":
            with pytest.raises(ERRORS):
                mod.run_axes(X, jnp.full(3, 2.0), True)
        elif name in ("mass", "size"):  # under jit it fails; on the host it works
            with pytest.raises(ERRORS):
                run(mod)
            assert float(mod.Body(X, X).mass()) == 6.0 and mod.Board(jnp.ones(4)).size == 2
        else:
            with pytest.raises(ERRORS):
                run(mod)
            mod.run_shared_eagerly(X)
            mod.run_shared_eagerly(-X)
    else:
        run(mod)


@pytest.mark.parametrize("name, run, verdict", CASES, ids=[c[0] for c in CASES])
def test_lint_says_what_real_jax_does(name, run, verdict):
    hits = _findings(name)
    if verdict is None:
        assert not hits, [f"{f.location.line}: {f.code} {f.severity} {f.message}" for f in hits]
    else:
        assert hits and {f.severity for f in hits} == {verdict}, [f"{f.code} {f.severity}" for f in hits]
        assert all(f.confidence == ("certain" if verdict == "error" else "likely") for f in hits)


def test_eager_vmap_print_runs_on_every_call(capsys):
    mod = _module()
    mod.run_vmap(X)
    mod.run_vmap(X)
    assert capsys.readouterr().out.count("mapping") == 2


def test_a_warning_says_what_was_not_proven():
    (hit,) = _findings("shared")
    assert "traced because `run_shared`" in hit.message and "not every caller of `shared` is known" in hit.message
    (err,) = _findings("_helper")
    assert err.details["traced_via"].startswith("`run_helper`")


def test_a_function_reached_from_two_modules_is_reported_once(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(
        "import jax\n\n\ndef _clip(x):\n    if x.max() > 1:\n        return x / x.max()\n    return x\n\n\n"
        "def clip(x):\n    return _clip(x)\n\n\n@jax.jit\ndef local_step(x):\n    return clip(x)\n")
    (pkg / "train.py").write_text("import jax\nfrom .ops import clip\n\n\n@jax.jit\ndef step(x):\n    return clip(x)\n")
    for jobs in (1, 2):
        result = lint([str(tmp_path)], config=False, jobs=jobs)
        assert [(Path(f.location.file).name, f.location.line) for f in result.findings] == [("ops.py", 5)]
    np.testing.assert_allclose(X, X)


def test_a_subclass_overriding_the_jitted_caller_is_not_reached(tmp_path):
    """A base class's jitted method calls self._next; a subclass that overrides both runs its own caller,
    eagerly (netket's NumPy sampler): its _next is never traced. A subclass that does not, is."""
    pkg = tmp_path / "samplers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(
        "import jax\n\n\nclass Sampler:\n    @jax.jit\n    def chain(self, x):\n        return self._next(x)\n\n"
        "    def _next(self, x):\n        return x\n")
    (pkg / "numpy_sampler.py").write_text(
        "import jax.numpy as jnp\nimport numpy as np\n\nfrom .base import Sampler\n\n\nclass NumpySampler(Sampler):\n"
        "    def chain(self, x):\n        return self._next(x)\n\n    def _next(self, x):\n"
        "        return np.exp(x)\n\n\nclass JaxSampler(Sampler):\n    def _next(self, x):\n"
        "        return np.exp(x)\n")
    result = lint([str(pkg)], config=False, jobs=1)
    assert [(Path(f.location.file).name, f.location.line, f.code) for f in result.findings] == [
        ("numpy_sampler.py", 17, "JS104")]


def test_a_jit_built_once_per_key_or_object_is_not_a_fresh_jit_per_call():
    """JS204 claims a recompile on every call. A cached factory (`@functools.lru_cache`), a constructor, or a
    memo slot that outlives the call (`if self._y is None: self._y = jax.jit(...)(x)`) traces once per key or
    object; a local memo traces on every call, and is still reported."""
    src = (
        "import functools\nimport jax\nimport jax.numpy as jnp\n\nTRACES = []\n\n\n"
        "@functools.lru_cache(maxsize=None)\ndef table(n):\n"
        "    f = jax.jit(lambda x: TRACES.append(1) or x * n)\n    return f(jnp.arange(n))\n\n\n"
        "class Lazy:\n    def __init__(self, x0):\n        init = jax.jit(lambda x: TRACES.append(2) or x * 2)\n"
        "        self.state = init(x0)\n        self._y = None\n\n"
        "    def value(self, x):\n        if self._y is None:\n"
        "            self._y = jax.jit(lambda y: TRACES.append(3) or y + 1)(x)\n        return self._y\n\n\n"
        "def local_memo(y, fn=None):\n    if fn is None:\n"
        "        fn = jax.jit(lambda z: TRACES.append(4) or z + 1)\n    return fn(y)\n")
    hits = [(f.code, f.location.line) for f in lint_source(src, "m.py")]
    assert hits == [("JS204", 28)], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    lazy = namespace["Lazy"](X)
    for _ in range(3):
        namespace["table"](3)
        lazy.value(X)
        namespace["local_memo"](X)
    assert sorted(namespace["TRACES"]) == [1, 2, 3, 4, 4, 4]


def test_a_loop_whose_carry_changes_shape_has_no_fori_loop_rewrite():
    """JS202 suggests lax.fori_loop/scan; with a carry that grows, or items sized by the index, that rewrite
    raises under real JAX, so the finding is info and says why."""
    src = ("import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef grow(x):\n    for i in range(x.shape[0]):\n"
           "        x = jnp.concatenate([x, x[:1]])\n    return x\n\n\n@jax.jit\ndef plain(x):\n    acc = 0.0\n"
           "    for i in range(x.shape[0]):\n        acc = acc + x[i] * 2\n    return acc\n")
    hits = {f.location.line: f for f in lint_source(src, "m.py") if f.code == "JS202"}
    assert hits[7].severity == "info" and "changes shape" in hits[7].message
    assert hits[15].severity == "info" and "changes shape" not in hits[15].message  # a shape-set count: advice
    with pytest.raises(TypeError):
        jax.lax.fori_loop(0, 3, lambda i, x: jnp.concatenate([x, x[:1]]), X)


def test_filter_vmap_passes_python_arguments_through():
    """`eqx.filter_vmap(g)(xs, 3)`: a non-array argument is not mapped; `g` sees the Python int 3."""
    eqx = pytest.importorskip("equinox")
    src = ("import equinox as eqx\n\n\ndef g(x, n):\n    if n > 2:\n        return x\n    return x * 2\n\n\n"
           "def run(xs):\n    return eqx.filter_vmap(g)(xs, 3)\n")
    assert not lint_source(src, "m.py")
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    np.testing.assert_allclose(namespace["run"](X), X)
    assert eqx.filter_vmap(lambda x, n: x * n)(X, 2).shape == X.shape


def test_a_list_that_still_reaches_a_static_argument_is_reported():
    src = ("import functools\nimport jax\nimport jax.numpy as jnp\n\n\n"
           "@functools.partial(jax.jit, static_argnames=('shape',))\ndef filled(x, shape):\n    return jnp.zeros(shape)\n\n\n"
           "def direct(x):\n    shape = [1, 2]\n    return filled(x, shape=shape)\n\n\n"
           "def sometimes(x, flag):\n    shape = (1, 2)\n    if flag:\n        shape = [3]\n    return filled(x, shape=shape)\n")
    hits = [(f.location.line, f.severity) for f in lint_source(src, "m.py") if f.code == "JS602"]
    assert hits == [(13, "error"), (20, "warning")], hits
    # a binding in a `try` body may reach its `except`, and a loop's body its `else`, past an earlier kill
    later = src + ("\n\ndef handled(x, risky):\n    shape = (1, 2)\n    try:\n        shape = [3]\n        risky()\n"
                   "    except ValueError:\n        return filled(x, shape=shape)\n    return x\n")
    hits = [(f.location.line, f.severity) for f in lint_source(later, "m.py") if f.code == "JS602"]
    assert hits == [(13, "error"), (20, "warning"), (29, "warning")], hits


def test_a_guard_narrows_the_path_that_skips_its_body():
    """`if not isinstance(s, tuple): s = tuple(...)`: on the path that skips the body the guard proved `s` a
    tuple already, so the array bound before never reaches the static argument; `list` narrows to a list."""
    src = ("import functools\nimport jax\nimport jax.numpy as jnp\n\n\n"
           "@functools.partial(jax.jit, static_argnames=('shape',))\ndef filled(x, shape):\n"
           "    return jnp.zeros(shape) + x.sum()\n\n\n"
           "def conv(x):\n    shape = jnp.array([2, 3])\n    if not isinstance(shape, tuple):\n"
           "        shape = tuple(int(s) for s in shape)\n    return filled(x, shape=shape)\n\n\n"
           "def conv_raise(x, shape):\n    shape = jnp.array(shape)\n    if not isinstance(shape, tuple):\n"
           "        raise TypeError('shape must be a tuple')\n    return filled(x, shape=shape)\n\n\n"
           "def conv_list(x):\n    shape = [2, 3]\n    if not isinstance(shape, list):\n        shape = list(shape)\n"
           "    return filled(x, shape=shape)\n")
    hits = [(f.location.line, f.severity) for f in lint_source(src, "m.py") if f.code == "JS602"]
    assert hits == [(29, "error")], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    assert namespace["conv"](X).shape == (2, 3)
    with pytest.raises(TypeError):
        namespace["conv_raise"](X, (2, 3))
    with pytest.raises(ValueError, match="[Hh]ashable"):
        namespace["conv_list"](X)


def test_an_item_of_a_dict_valued_field_is_still_traced():
    """`if self.d:` is Python work on a dict; `if self.d["k"] > 0:` is a test of a traced leaf and still fails."""
    src = ("from typing import Dict, NamedTuple\nimport jax\n\n\nclass B(NamedTuple):\n    w: jax.Array\n"
           "    d: Dict[str, jax.Array]\n\n\n@jax.jit\ndef keep(b: B, x):\n    if b.d['k'].sum() > 0:\n"
           "        return x\n    return -x\n")
    hits = [(f.code, f.location.line) for f in lint_source(src, "m.py")]
    assert hits == [("JS101", 12)], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    with pytest.raises(ERRORS):
        namespace["keep"](namespace["B"](X, {"k": X}), X)


def test_vmap_in_axes_none_in_every_form_leaves_python_values():
    """An argument whose in_axes entry is None reaches the function as the caller's Python value: `in_axes=None`
    for all (with axis_size), a lambda given in_axes, nested tuples, `(0,) + (None,)`. A mapped one is traced."""
    src = ("import jax\nimport jax.numpy as jnp\n\n\ndef sc(x, n):\n    return jnp.zeros((n,)) + x.sum()\n\n\n"
           "def all_none(x, n):\n    return jax.vmap(sc, in_axes=None, axis_size=3)(x, n)\n\n\n"
           "def nested(xs, ys, n):\n"
           "    return jax.vmap(lambda p, m: jnp.zeros((m,)) + p[0], in_axes=((0, 0), None))((xs, ys), n)\n\n\n"
           "def sc2(x, n):\n    return jnp.zeros((n,)) + x\n\n\n"
           "def joined(xs, n):\n    return jax.vmap(sc2, in_axes=(0,) + (None,))(xs, n)\n\n\n"
           "def mapped(xs, ns):\n    return jax.vmap(lambda x, m: jnp.zeros((m,)) + x, in_axes=(0, 0))(xs, ns)\n")
    hits = [(f.code, f.location.line, f.severity) for f in lint_source(src, "m.py")]
    assert hits == [("JS303", 26, "error")], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    assert namespace["all_none"](X, 2).shape == (3, 2)
    assert namespace["nested"](X, X, 2).shape == (3, 2)
    assert namespace["joined"](X, 2).shape == (3, 2)
    with pytest.raises(TypeError, match="concrete"):
        namespace["mapped"](X, jnp.array([1, 2, 3]))


def test_filter_vmap_bound_to_a_name_passes_python_arguments_through():
    """`fn = eqx.filter_vmap(g); fn(xs, 4)`: every call of the name passes the literal 4, a Python value to `g`.
    Called with an array there, `n` is mapped and traced (still reported)."""
    eqx = pytest.importorskip("equinox")
    src = ("import equinox as eqx\nimport jax.numpy as jnp\n\n\ndef g(x, n):\n    return jnp.zeros((n,)) + x\n\n\n"
           "def run(xs):\n    fn = eqx.filter_vmap(g)\n    return fn(xs, 4) + fn(xs, 4)\n\n\n"
           "def g2(x, n):\n    return jnp.zeros((n,)) + x\n\n\n"
           "def run2(xs, ns):\n    fn = eqx.filter_vmap(g2)\n    return fn(xs, ns)\n")
    hits = [(f.code, f.location.line) for f in lint_source(src, "m.py")]
    assert hits == [("JS303", 15)], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    assert namespace["run"](X).shape == (3, 4)
    with pytest.raises(TypeError, match="concrete"):
        namespace["run2"](X, jnp.array([1, 2, 3]))
    assert eqx is not None


def test_a_list_the_traced_caller_made_does_not_outlive_the_trace():
    """`acc = []; helper(x, acc)` under jit: the list is made in the trace and dies with it, so the helper's append
    leaks nothing. Passed a module-level list on some way, the append still leaks a tracer there (reported)."""
    src = ("import jax\n\nLOG = []\n\n\ndef helper(x, out):\n    out.append(x * 2)\n    return out\n\n\n"
           "@jax.jit\ndef caller(x):\n    acc = []\n    acc = helper(x, acc)\n    return acc[0]\n\n\n"
           "def helper2(x, out):\n    out.append(x * 2)\n    return out\n\n\n"
           "@jax.jit\ndef made(x):\n    return helper2(x, [])[0]\n\n\n"
           "@jax.jit\ndef logged(x):\n    return helper2(x, LOG)[0]\n")
    hits = [(f.code, f.location.line) for f in lint_source(src, "m.py")]
    assert hits == [("JS403", 19)], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    np.testing.assert_allclose(namespace["caller"](X), X * 2)
    np.testing.assert_allclose(namespace["made"](X), X * 2)
    namespace["logged"](X)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        namespace["LOG"][0] + 1


def test_a_jit_wrapping_decorator_builds_the_jit_once_per_decorated_function():
    """`jitted = jax.jit(lambda ...)` kept by a returned `wrapper`: one trace however often the wrapper runs. A
    closure called at once instead of returned rebuilds the jit on every call (still reported)."""
    src = ("import functools\nimport jax\n\nTRACES = []\n\n\n"
           "def jit_method(fn):\n    jitted = jax.jit(lambda *a: TRACES.append(1) or fn(*a))\n\n"
           "    @functools.wraps(fn)\n    def wrapper(*args):\n        return jitted(*args)\n    return wrapper\n\n\n"
           "def per_call(fn, x):\n    jitted = jax.jit(lambda *a: TRACES.append(2) or fn(*a))\n\n"
           "    def run(y):\n        return jitted(y)\n    return run(x)\n")
    hits = [(f.code, f.location.line) for f in lint_source(src, "m.py")]
    assert hits == [("JS204", 17)], hits
    namespace: dict = {}
    exec(compile(src, "m.py", "exec"), namespace)
    double = namespace["jit_method"](lambda x: x * 2)
    for _ in range(3):
        double(X)
        namespace["per_call"](lambda x: x * 2, X)
    assert sorted(namespace["TRACES"]) == [1, 2, 2, 2]
