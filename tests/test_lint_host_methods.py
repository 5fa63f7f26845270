"""Methods of a pytree made for the host are not reached traced (lint/pytrees.py): a private method that only
`__init__` uses runs while an instance is built (eagerly), and a method whose return type is a Python container
of Python numbers (`-> dict[int, int]`) hands back host values by design, as do the helpers only such an
accessor calls (`seed() -> int` calling `seed_of(self.nodes)`). Under real `eqx.filter_jit` building
and using the module works; a public look-alike that turns a field into Python ints inside the traced function
fails there, and lint reports only it."""

from __future__ import annotations

import textwrap

import equinox as eqx
import jax
import numpy as np
import pytest

from jitscope.lint import lint_source

SRC = textwrap.dedent("""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import numpy as np


    class Graph(eqx.Module):
        nodes: np.ndarray
        weights: jax.Array

        def __init__(self, nodes):
            self.nodes = nodes
            self.weights = self._weights()

        @property
        def node_index(self) -> dict[int, int]:
            return {int(n): i for i, n in enumerate(self.nodes)}

        def _weights(self):
            index = self.node_index
            return jnp.asarray([index[int(n)] for n in self.nodes], dtype=float)

        def total(self):
            return jnp.sum(self.weights)

        def ranks(self):
            return jnp.asarray([int(n) for n in self.nodes])

        def seed(self) -> int:
            return seed_of(self.nodes)


    def seed_of(nodes):
        return int(nodes.sum()) % 7


    @eqx.filter_jit
    def total(graph):
        return graph.total()


    @eqx.filter_jit
    def ranks(graph):
        return graph.ranks()
""")


def _module():
    ns: dict = {}
    exec(compile(SRC, "graph.py", "exec"), ns)
    return ns


def test_host_methods_run_while_building_and_lint_is_quiet_on_them():
    ns = _module()
    g = ns["Graph"](np.arange(3))
    assert float(ns["total"](g)) == 3.0 and g.seed() == 3  # `-> int`: an accessor for the host, and its helper
    hits = [(f.code, f.location.line) for f in lint_source(SRC, "graph.py") if f.severity != "info"]
    assert hits == [("JS103", 28)], hits


def test_the_public_lookalike_fails_under_filter_jit():
    ns = _module()
    with pytest.raises(jax.errors.ConcretizationTypeError):
        ns["ranks"](ns["Graph"](np.arange(3)))
    assert eqx.is_array(np.arange(3))  # filter_jit traces NumPy arrays too
