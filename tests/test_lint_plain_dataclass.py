"""Python's own `dataclasses.dataclass` makes no pytree (jaxmodel/families/jax_core.py PLAIN_DATACLASS): an
instance handed to `jax.jit` raises TypeError, and one a jitted function closes over keeps its NumPy fields
NumPy, so a method computing with NumPy on them works under real jit and lint stays quiet. The same class
registered with `jax.tree_util.register_dataclass` is a pytree: its array fields are tracers there, NumPy on
them fails under jit, and lint reports it."""

from __future__ import annotations

import textwrap

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

PLAIN = textwrap.dedent("""
    import dataclasses

    import jax
    import jax.numpy as jnp
    import numpy as np


    @dataclasses.dataclass
    class Solver:
        matrix: np.ndarray
        scale: float = 1.0

        def inverse(self, eta):
            implicit = self.matrix * eta
            return np.linalg.inv(implicit)

        def step(self, x):
            return jnp.asarray(self.inverse(1.0)) @ x


    def make_step(solver):
        return jax.jit(lambda x: solver.step(x))
""")
REGISTERED = PLAIN + textwrap.dedent("""

    jax.tree_util.register_dataclass(Solver, data_fields=["matrix"], meta_fields=["scale"])


    @jax.jit
    def run(solver, x):
        return solver.step(x)
""")


def _module(src):
    ns: dict = {"__name__": "plain_dc"}
    exec(compile(src, "solver.py", "exec"), ns)
    return ns


def test_a_plain_dataclass_is_no_pytree_under_real_jit_and_lint_is_quiet():
    import sys
    import types
    mod = types.ModuleType("plain_dc")
    sys.modules["plain_dc"] = mod  # dataclasses look their module up
    ns = _module(PLAIN)
    solver = ns["Solver"](jnp.eye(3).__array__() * 2)
    assert float(ns["make_step"](solver)(jnp.ones(3))[0]) == 0.5  # closed over: NumPy fields stay NumPy
    with pytest.raises(TypeError):
        jax.jit(lambda s, x: s.step(x))(solver, jnp.ones(3))  # not a valid JAX type
    hits = [(f.code, f.location.line) for f in lint_source(PLAIN, "solver.py") if f.severity != "info"]
    assert hits == [], hits


def test_a_registered_dataclass_carries_tracers_and_numpy_on_them_is_reported():
    import sys
    import types
    sys.modules["plain_dc"] = types.ModuleType("plain_dc")
    ns = _module(REGISTERED)
    solver = ns["Solver"](jnp.eye(3).__array__() * 2)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        ns["run"](solver, jnp.ones(3))
    hits = [(f.code, f.location.line) for f in lint_source(REGISTERED, "solver.py") if f.severity != "info"]
    assert ("JS104", 16) in hits, hits
