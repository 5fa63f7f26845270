"""How a value is bound decides what JAX makes of it (docs/lint.md, "How a value is bound", session 35).

Each class runs under real JAX here beside a twin that fails (or keeps its finding):
- one branch of an ``if``/``elif`` runs: a name a first branch binds to a traced array is still the caller's
  static value in the ``elif`` (lint/branches.py ``alternatives``);
- a closure's default that captures a value where the closure is built (``lambda key, s=shape:``) is that
  value on every call (jit traces only what a call passes);
- ``nnx.jit`` merges the state of a graph-node argument back to the caller (``metrics.update(...)`` is no lost
  mutation), where ``jax.jit`` hands the function a copy of a dict;
- a jit in a loop of a function a call builds from the loop's value (``partial(make(i), ...)``) compiles per
  value because each is a different program (JS203 info), unlike a fresh partial of one fixed function;
- a pytree's accessor that returns a Python number (``-> float``) runs on the host: nothing in it is staged.
"""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitscope

BRANCHES_SRC = '''\
from functools import partial

import jax
import jax.numpy as jnp


def _bins(bins):
    if isinstance(bins, float):
        bins = jnp.arange(3.0) * bins
    elif isinstance(bins, tuple):
        if bins[0] != 0:
            raise ValueError(bins)
        bins = jnp.asarray(bins, dtype=jnp.float32)
    return bins


@partial(jax.jit, static_argnames=("bins",))
def spectrum(f, bins=(0, 1, 2)):
    return f + _bins(bins).sum()


def _edges(edges, log):
    if log:
        edges = jnp.exp(jnp.asarray(edges))
    else:
        edges = edges
    if edges[0] != 0:
        raise ValueError(edges)
    return edges


@partial(jax.jit, static_argnames=("edges", "log"))
def binned(f, edges=(0.0, 1.0), log=False):
    return f + jnp.asarray(_edges(edges, log)).sum()
'''

CAPTURE_SRC = '''\
import jax
import jax.numpy as jnp


def make_init(shape):
    return jax.jit(lambda key, s=shape: jax.random.normal(key, s))


def make_padded(n):
    return jax.jit(lambda x, size=n: jnp.zeros((size,)) + x.sum())


def make_init_passed():
    return jax.jit(lambda key, s: jax.random.normal(key, s))
'''

NNX_SRC = '''\
import jax
from flax import nnx


@nnx.jit
def record(metrics, x):
    metrics.update(values=x)


@jax.jit
def record_dict(metrics, x):
    metrics.update(loss=x)
'''

BUILT_SRC = '''\
from functools import partial

import jax
import jax.numpy as jnp


def make(power):
    def f(x, scale):
        return scale * x ** power
    return f


def g(x, scale):
    return scale * x


def per_power(x):
    fns = {i: jax.jit(partial(make(i), scale=2.0)) for i in range(1, 4)}
    return [fns[i](x) for i in fns]


def fixed(x):
    for _ in range(3):
        x = jax.jit(partial(g, scale=2.0))(x)
    return x
'''

ACCESSOR_SRC = '''\
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Archive:
    data: jnp.ndarray

    @property
    def size(self) -> float:
        return float(sum(~jnp.isnan(self.data)))

    def total(self):
        return sum(self.data)
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lint(path, select):
    return [(f.code, f.location.line, f.severity)
            for f in jitscope.lint([str(path)], config=False, jobs=1, select=select).findings]


def test_an_elif_sees_the_callers_value_not_what_the_if_branch_bound(tmp_path):
    path = tmp_path / "branches.py"
    path.write_text(BRANCHES_SRC)
    mod = _load(path, "branches_lookalike")
    x = jnp.ones(2)
    assert np.allclose(mod.spectrum(x), 4.0)  # the tuple branch runs on the static tuple
    assert np.allclose(mod.spectrum(x, bins=2.0), 7.0)
    assert np.allclose(mod.binned(x), 2.0)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        mod.binned(x, log=True)  # after the if/else `edges` may be the traced exp(...)
    assert _lint(path, ["JS101"]) == [("JS101", 27, "warning")]


def test_a_default_that_captures_a_value_is_that_value_under_jit(tmp_path):
    path = tmp_path / "capture.py"
    path.write_text(CAPTURE_SRC)
    mod = _load(path, "capture_lookalike")
    key = jax.random.PRNGKey(0)
    assert mod.make_init((2, 3))(key).shape == (2, 3)
    assert mod.make_padded(4)(jnp.ones(2)).shape == (4,)
    with pytest.raises(TypeError):
        mod.make_init_passed()(key, (2, 3))  # passed, the shape is traced: jit cannot make a tracer a shape
    assert _lint(path, ["JS303", "JS304"]) == [("JS303", 14, "error")]


def test_nnx_jit_merges_an_arguments_state_back_where_jax_jit_copies_a_dict(tmp_path):
    nnx = pytest.importorskip("flax.nnx")
    path = tmp_path / "nnx_step.py"
    path.write_text(NNX_SRC)
    mod = _load(path, "nnx_lookalike")
    metrics = nnx.metrics.Average()
    mod.record(metrics, jnp.asarray([2.0, 4.0]))
    assert float(metrics.compute()) == 3.0  # the caller's object got the update
    d = {}
    mod.record_dict(d, jnp.ones(()))
    assert d == {}  # jax.jit mutated its own copy
    assert [c for c, line, _ in _lint(path, ["JS403"])] == ["JS403"] and _lint(path, ["JS403"])[0][1] == 12


def test_a_jit_of_a_function_built_per_iteration_compiles_per_value_on_purpose(tmp_path):
    path = tmp_path / "built.py"
    path.write_text(BUILT_SRC)
    mod = _load(path, "built_lookalike")
    x = jnp.full(2, 2.0)
    assert [float(v[0]) for v in mod.per_power(x)] == [4.0, 8.0, 16.0]  # three programs, one per power
    got = _lint(path, ["JS203"])
    assert got == [("JS203", 18, "info"), ("JS203", 24, "warning")], got


def test_a_pytree_accessor_returning_a_python_number_runs_on_the_host(tmp_path):
    pytest.importorskip("flax.struct")
    path = tmp_path / "archive.py"
    path.write_text(ACCESSOR_SRC)
    mod = _load(path, "accessor_lookalike")
    a = mod.Archive(jnp.asarray([1.0, jnp.nan, 2.0]))
    assert a.size == 2.0  # eager: a Python float
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda arc: arc.size)(a)  # under jit `float()` of a tracer fails: it is made for the host
    assert _lint(path, ["JS201"]) == [("JS201", 14, "info")]  # `total` only; `size` is the host's


NESTED_SRC = '''\
import jax
import jax.numpy as jnp

TRACES = []


def run_config(config, x):
    @jax.jit
    def f(v):
        TRACES.append(config["scale"])
        return v * config["scale"] + config["shift"]
    return f(x)


def sweep(x):
    return [run_config({"scale": s, "shift": 0.0}, x) for s in (1.0, 2.0, 3.0)]


def train_step(params, batch):
    @jax.jit
    def loss(p):
        return jnp.mean((batch * p) ** 2)
    return loss(params)


def train(params, data):
    return [train_step(params, b) for b in data]
'''


def test_a_nested_jit_of_a_per_call_config_compiles_per_config_on_purpose(tmp_path):
    """`run_config(config, x)` builds the program of its own config: three configs, three compiles, whoever
    hoists it must pass the config (a Python dict: static, one compile per value either way): info. A closure
    over an array (`batch * p`) is the waste JS205 warns of: pass `batch` and one compile serves every call."""
    path = tmp_path / "nested.py"
    path.write_text(NESTED_SRC)
    mod = _load(path, "nested_lookalike")
    assert [float(v[0]) for v in mod.sweep(jnp.ones(2))] == [1.0, 2.0, 3.0]
    assert mod.TRACES == [1.0, 2.0, 3.0]  # one trace per config: what the program needs
    assert _lint(path, ["JS205"]) == [("JS205", 8, "info"), ("JS205", 20, "warning")]


def test_a_test_modules_helper_jitting_per_case_closures_is_info(tmp_path):
    """The same helpers in `test_nested.py`: a test runs them per case, compiling per case on purpose; a fixture
    that only lives under `tests/` is no test module (tests/lint_fixtures/JS205.py keeps its warnings)."""
    path = tmp_path / "test_nested.py"
    path.write_text(NESTED_SRC)
    assert _lint(path, ["JS205"]) == [("JS205", 8, "info"), ("JS205", 20, "info")]
