"""A public library function whose own source is written to be traced is walked by default, at warning.

lint/unknown_callers.py walks public functions no linted jit reaches (docs/lint.md "Unknown callers"). Most are
meant to run eagerly, so by default nothing is said about them and, when asked (``--unknown-callers``), only
``info``. A function whose source says it is made for a trace is different: a parameter annotated as a JAX array
and nothing else (``jax.Array``, jaxtyping's ``Float[Array, "n"]``: under the caller's jit a tracer), or a call
of lax's structured control flow (``lax.fori_loop``, ``scan``, ``while_loop``, ``cond``: written instead of Python
control flow so that the function can be jitted). There a Python ``if``/``float()`` on a ``jnp`` result is a
warning in a default run. Each flagged function below raises under real ``jax.jit`` and runs eagerly; the
look-alikes (no such signal; ``ArrayLike``, which admits Python numbers; ``np.ndarray``) stay quiet by default
and are info when asked.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope

OPS = '''\
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike
from jaxtyping import Array, Float


def power(A: jax.Array, n: int = 3):
    v = jnp.ones(A.shape[0])
    for _ in range(n):
        v = A @ v
        nrm = jnp.linalg.norm(v)
        if nrm == 0.0:
            break
        v = v / nrm
    return v


def total(x: Float[Array, "n"]):
    return float(jnp.sum(x))


def flip(x, n: int = 2):
    s = jnp.sum(x)
    if s > 0:
        x = -x
    return lax.fori_loop(0, n, lambda i, c: c + 1.0, x)


def plain(x):
    s = jnp.sum(x)
    if s > 0:
        return x
    return -x


def like(x: ArrayLike, y: np.ndarray):
    if jnp.sum(x) > 0:
        return y
    return -y
'''


def _lint(tmp_path, **kw):
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(OPS)
    found = jitscope.lint([str(pkg)], config=False, jobs=1, **kw).findings
    return sorted((f.code, f.location.line, f.severity) for f in found), found


def test_functions_written_to_be_traced_are_warnings_by_default(tmp_path):
    got, found = _lint(tmp_path)
    assert got == [("JS101", 14, "warning"), ("JS101", 26, "warning"), ("JS103", 21, "warning")], got
    why = {f.location.line: f.message for f in found}
    assert "`power` is written to be traced (`A: jax.Array`)" in why[14]
    assert "(`x: Float[Array, 'n']`)" in why[21]
    assert "(it calls `lax.fori_loop`)" in why[26]


def test_asked_for_every_unknown_caller_the_others_are_info(tmp_path):
    got, _ = _lint(tmp_path, unknown_callers=True)
    assert got == [("JS101", 14, "warning"), ("JS101", 26, "warning"), ("JS101", 33, "info"),
                   ("JS101", 39, "info"), ("JS103", 21, "warning")], got


def test_the_flagged_functions_fail_under_real_jit_and_run_eagerly():
    ns: dict = {}
    exec(compile(OPS, "ops.py", "exec"), ns)
    A, x = jnp.eye(3), jnp.ones(3)
    ns["power"](A), ns["total"](x), ns["flip"](x), ns["plain"](x), ns["like"](x, x)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(ns["power"])(A)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(ns["total"])(x)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(ns["flip"])(x)
