"""A pytree method declared to return a SciPy sparse matrix runs on the host (lint/pytrees.py ``python_scalar``).

SciPy holds host values only: a method annotated ``-> csc_matrix`` builds it from concrete arrays, so it and the
helpers only it calls are host accessors. Real JAX on CPU: the property works on an eager instance; the same
helper called from a jitted function really fails on the tracer and stays reported.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_lint_display_only import run_module

from jitscope.lint import lint_source

pytest.importorskip("scipy")

SRC = '''import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from scipy.sparse import csc_matrix


class Graph(eqx.Module):
    edges: jax.Array
    weights: jax.Array

    @property
    def incidence(self) -> csc_matrix:
        return incidence_matrix(self.edges, 4)

    def energy(self):
        return jnp.sum(self.weights ** 2)


def incidence_matrix(edges, n):
    e = np.asarray(edges)
    m = len(e)
    rows = np.concatenate((np.arange(m), np.arange(m)))
    cols = np.concatenate((e[:, 0], e[:, 1]))
    data = np.concatenate((-np.ones(m), np.ones(m)))
    return csc_matrix((data, (rows, cols)), shape=(m, n))
'''

TRACED = '''

@jax.jit
def degree(edges):
    return jnp.asarray(incidence_matrix(edges, 4).sum(axis=0))
'''


def test_the_scipy_property_runs_on_the_host_and_the_jitted_use_fails():
    ns = run_module(SRC + TRACED)
    g = ns["Graph"](jnp.array([[0, 1], [1, 2], [2, 3]]), jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(g.incidence.sum(axis=0)).ravel(), [-1, 0, 0, 1])
    with pytest.raises(jax.errors.TracerArrayConversionError):
        ns["degree"](g.edges)


def test_js104_quiet_under_the_scipy_accessor_and_reported_under_jit():
    assert [f.code for f in lint_source(SRC, "m.py") if f.code == "JS104"] == []
    assert [(f.location.line, f.code) for f in lint_source(SRC + TRACED, "m.py") if f.code == "JS104"] == [(21, "JS104")]
