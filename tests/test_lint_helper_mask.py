"""JS301 with a mask a helper builds from static sizes (``return jnp.arange(n) < k``), indexed under jit.

Under jit the helper is staged with its caller: ``jnp.arange(n) < k`` is a tracer although ``n`` and ``k`` are
Python values, so ``x[make_mask(x.shape[0], 2)]`` raises NonConcreteBooleanIndexError (lint/returns.py reads
what a module function returns: a boolean array made by ``jnp`` on every ``return``). Run here under real
jax.jit; quiet and working: the NumPy version under jit, and the jnp version called eagerly.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope

SRC = '''\
import jax
import jax.numpy as jnp
import numpy as np


def make_mask(n, k):
    return jnp.arange(n) < k


def make_mask_np(n, k):
    return np.arange(n) < k


def band(n, lo, hi):
    idx = jnp.arange(n)
    return (idx >= lo) & (idx < hi)


@jax.jit
def head(x):
    return x[make_mask(x.shape[0], 2)].sum()


@jax.jit
def head_np(x):
    return x[make_mask_np(x.shape[0], 2)].sum()


@jax.jit
def middle(x):
    m = band(x.shape[0], 1, 3)
    return x[m].sum()


def eager(x):
    return x[make_mask(x.shape[0], 2)]
'''


def test_js301_sees_a_jnp_mask_returned_by_a_helper(tmp_path):
    path = tmp_path / "masks.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS301"])
    assert [(f.location.line, f.severity) for f in result.findings] == [(21, "error"), (32, "error")]


def test_the_helper_mask_fails_under_jit_and_the_look_alikes_work():
    ns: dict = {}
    exec(compile(SRC, "masks.py", "exec"), ns)
    x = jnp.arange(4.0)
    for name in ("head", "middle"):
        with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
            ns[name](x)
    assert float(ns["head_np"](x)) == 1.0
    assert ns["eager"](x).tolist() == [0.0, 1.0]
