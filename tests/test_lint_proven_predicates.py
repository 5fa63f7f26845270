"""A predicate the traced caller proves of an argument (``assert is_jax(c)``, ``if is_jax(c):``) holds in the
callee: its ``if not is_jax(c):`` branch never runs on that way (lint/guards.py ``proven_at``/``dead_branch``).

Real JAX on CPU: the jitted caller that asserts the predicate runs (the NumPy branch is skipped); a caller that
proves nothing, given a value the predicate rejects, really fails in the same NumPy branch and stays reported.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from test_lint_display_only import run_module

from jitscope.lint import lint_source

SRC = '''import jax
import jax.numpy as jnp
import numpy as np


def _is_jax_cosmo(c):
    return isinstance(c, dict) and "h" in c


class Lens:
    def eta(self, cosmo, zs):
        if not _is_jax_cosmo(cosmo):
            np.testing.assert_equal(np.sort(zs), zs)
        return jnp.cumsum(zs) * 2.0

    def arrival(self, cosmo, zs):
        assert _is_jax_cosmo(cosmo), "need a jax cosmology"
        zs = jnp.asarray(zs)
        return self.eta(cosmo, zs).sum()


def loose_eta(cosmo, zs):
    if not _is_jax_cosmo(cosmo):
        np.testing.assert_equal(np.sort(zs), zs)
    return jnp.cumsum(zs)


LENS = Lens()


@jax.jit
def arrival_time(cosmo, zs):
    return LENS.arrival(cosmo, zs)


@jax.jit
def loose(cosmo, zs):
    return loose_eta(cosmo, zs)


@jax.jit
def guarded(cosmo, zs):
    if _is_jax_cosmo(cosmo):
        return loose_eta(cosmo, zs)
    return zs
'''


def test_the_proven_way_runs_and_the_unproven_one_fails():
    ns = run_module(SRC)
    zs = jnp.array([0.5, 1.0, 2.0])
    assert float(ns["arrival_time"]({"h": jnp.float32(0.7)}, zs)) == pytest.approx(2.0 * (0.5 + 1.5 + 3.5))
    assert float(ns["guarded"]({"h": jnp.float32(0.7)}, zs)[-1]) == pytest.approx(3.5)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        ns["loose"]({"omega": jnp.float32(0.3)}, zs)  # no "h": the NumPy branch runs on a tracer


def test_js104_gone_where_every_traced_caller_proves_the_predicate():
    lines = {f.location.line for f in lint_source(SRC, "m.py") if f.code == "JS104"}
    assert 13 not in lines  # Lens.eta: its only traced caller asserts _is_jax_cosmo(cosmo)
    assert 24 in lines  # loose_eta: `loose` proves nothing (`guarded` does: one way is enough to keep it)
