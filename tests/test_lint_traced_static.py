"""JS608: a traced value passed, inside traced code, for a static argument of a jitted function.

A jit called while another function traces still hashes its static arguments to find its cache entry, and
tracers cannot be hashed: ``ValueError: Non-hashable static arguments are not supported``. The fixture
(lint_fixtures/JS608.py, its ``# JS608`` lines checked by tests/test_lint_rules.py) is run here under real
jax.jit: the flagged calls raise; a value static in the caller too, a shape, and an ``eqx.filter_jit`` callee
(which traces an array it would keep static by type) do not raise that error, and lint is quiet on them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax.numpy as jnp
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS608.py"


@pytest.fixture
def fixture(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS608", None)
    yield __import__("JS608")
    sys.modules.pop("JS608", None)


def test_js608_flags_tracers_at_static_positions():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS608"]).findings
    assert [(f.location.line, f.severity) for f in found] == [(19, "error"), (25, "error")]
    assert "traced value `positive` passed for static argument `training` of `layer`" in found[1].message


def test_the_flagged_calls_raise_and_the_look_alikes_do_not(fixture):
    x = jnp.ones(3)
    for call in (lambda: fixture.step(x, True), lambda: fixture.step_flag(x)):
        with pytest.raises(ValueError, match="Non-hashable static arguments"):
            call()
    assert float(fixture.step_static(x, True)[0]) == 2.0
    assert float(fixture.step_shape(x)[0]) == 2.0
    assert float(fixture.step_filtered(x, True)[0]) == 2.0
    assert float(fixture.layer(x, True)[0]) == 2.0  # eagerly the same value is a Python bool: it works


SCOPES = '''\
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit

from numpy.polynomial.hermite import hermval as _np_hermval


def hermval(x, coeffs):  # the module's function, not the method of the same name
    return x * len(coeffs)


class Shapelets:
    @partial(jit, static_argnums=(0, 3))
    def hermval(self, x, n_array, tensor=True):
        return hermval(x, n_array)  # a bare name: the module's hermval (a class body is no scope of methods)

    @partial(jit, static_argnums=(0,))
    def predict(this, bel):  # the instance goes to `this`, static position 0: `bel` is traced
        return bel * 2

    @staticmethod
    @partial(jit, static_argnums=(0,))
    def scale(n, x):  # a staticmethod binds nothing: position 0 is `n`
        return x * n

    @partial(jit, static_argnums=(0,))
    def run(self, x):
        y = self.hermval(x, (1.0, 2.0))
        z = self.predict(y)
        return self.scale(2, z)

    @partial(jit, static_argnums=(0,))
    def bad(self, x):
        return self.scale(x.sum(), x)  # a tracer at the staticmethod's static position 0
'''


def test_bare_names_never_reach_methods_and_the_instance_binds_the_first_parameter(tmp_path):
    """A call by bare name inside a method is the module's function, never a jitted method of the same name;
    a method's first parameter takes the instance whatever its name; a staticmethod binds nothing. The quiet
    calls run under real jit; the one flagged raises."""
    path = tmp_path / "scopes.py"
    path.write_text(SCOPES)
    found = jitscope.lint([str(path)], config=False, jobs=1, select=["JS608"]).findings
    assert [(f.location.line, f.severity) for f in found] == [(36, "error")], [(f.location.line, f.message) for f in found]
    ns: dict = {}
    exec(compile(SCOPES, str(path), "exec"), ns)
    s = ns["Shapelets"]()
    assert float(s.run(jnp.ones(3))[0]) == 8.0  # 1 * 2 coeffs, * 2, * 2
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        s.bad(jnp.ones(3))


OVERLOADS = '''\
from functools import partial

import jax
import jax.numpy as jnp


def dispatch(f):  # an overload registry: the def chosen by the argument's type at each call
    table = dispatch.table.setdefault(f.__name__, [])
    table.append(f)  # the first registered takes Python ints, the second anything else

    def call(n, x):
        return table[0 if isinstance(n, int) or len(table) == 1 else 1](n, x)
    return call


dispatch.table = {}


@dispatch
@partial(jax.jit, static_argnums=0)
def scale(n: int, x):
    return x * n


@dispatch
def scale(n: object, x):  # noqa: F811
    return x * n


@jax.jit
def outer(n, x):
    return scale(n, x)  # n is traced: the object overload, not the jitted one

'''


def test_a_name_defined_twice_at_module_level_reaches_no_known_jit(tmp_path):
    """Two module-level defs of one name (overloads a dispatch decorator combines, as plum's ``@dispatch``; or a
    plain redefinition, where Python binds the last): which def a call reaches is chosen at run time, so a call
    with a traced value is no certain JS608. Under real jit the call takes the unjitted overload and runs; the
    same program with the jitted def alone raises and stays flagged."""
    path = tmp_path / "overloads.py"
    path.write_text(OVERLOADS)
    found = jitscope.lint([str(path)], config=False, jobs=1, select=["JS608"]).findings
    assert found == [], [(f.location.line, f.message) for f in found]
    ns: dict = {}
    exec(compile(OVERLOADS, str(path), "exec"), ns)
    assert float(ns["outer"](jnp.float32(2.0), jnp.ones(2))[0]) == 2.0
    single = OVERLOADS.replace("@dispatch\ndef scale(n: object, x):  # noqa: F811\n    return x * n\n", "")
    assert single.count("def scale") == 1
    path.write_text(single)
    found = jitscope.lint([str(path)], config=False, jobs=1, select=["JS608"]).findings
    assert [f.code for f in found] == ["JS608"]
    ns = {}
    exec(compile(single, str(path), "exec"), ns)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        ns["outer"](jnp.float32(2.0), jnp.ones(2))
