"""A public library function that no linted jit reaches fails whenever its user jits it, if it demands a Python
value of a ``jnp`` result (lint/unknown_callers.py, docs/lint.md "Unknown callers").

Under jit every ``jnp`` operation is staged and returns a tracer whatever its inputs are, so ``n =
jnp.linalg.norm(v); if n == 0.0:`` raises TracerBoolConversionError under the user's ``jax.jit`` and works
eagerly. Nothing shows a caller that jits it: such findings are ``info``, never more. The look-alikes stay
quiet and run under real jit: a test on a Python parameter, a private helper, the same code in a script, a
function the module only calls eagerly, a NumPy version, and a display method. The walk is off unless asked
(``unknown_callers=True``, ``--unknown-callers``, ``unknown-callers = true`` in ``[tool.jitscope]``): most such
functions are meant to run eagerly, and a default run says nothing it cannot show.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import run_cli

import jitscope

OPS = '''\
import jax
import jax.numpy as jnp
import numpy as np


def power_norm(v, maxiter=3):
    for _ in range(maxiter):
        n = jnp.linalg.norm(v)
        if n == 0.0:
            break
        v = v / n
    return v


def time_end(dx, c, t_end=None):
    if t_end is None:
        t_end = jnp.sqrt(dx ** 2) / c
    return float(t_end)


class L2:
    def prox(self, v, lam):
        norm_v = jnp.linalg.norm(v)
        if norm_v == 0:
            return 0 * v
        return v * jnp.maximum(1 - lam / norm_v, 0)

    def __repr__(self):
        return f"L2({float(jnp.sqrt(2.0))})"


def soft(v, lam):
    if lam > 0:
        return jnp.maximum(v - lam, 0.0)
    return v


def np_norm(v):
    n = np.linalg.norm(v)
    if n == 0.0:
        return v
    return v / n


def _private(v):
    if jnp.linalg.norm(v) == 0.0:
        return v
    return v / 2
'''

SCRIPT = '''\
import jax.numpy as jnp


def report(v):
    if jnp.linalg.norm(v) == 0.0:
        print("zero")


report(jnp.ones(3))
'''


def _lint(tmp_path):
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(OPS)
    (tmp_path / "script.py").write_text(SCRIPT)
    return jitscope.lint([str(tmp_path)], config=False, jobs=1, unknown_callers=True)


def test_jnp_results_demanded_as_python_values_are_info_for_an_unknown_caller(tmp_path):
    result = _lint(tmp_path)
    got = sorted((f.code, f.location.file.rpartition("/")[2], f.location.line, f.severity) for f in result.findings)
    assert got == [("JS101", "ops.py", 9, "info"), ("JS101", "ops.py", 24, "info"),
                   ("JS103", "ops.py", 18, "info")], got
    by_line = {f.location.line: f for f in result.findings}
    assert "a caller may jit `power_norm`" in by_line[9].message
    assert "a caller may jit `L2.prox`" in by_line[24].message


def test_a_jit_in_the_tree_outranks_the_unknown_caller(tmp_path):
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(OPS + "\n\n@jax.jit\ndef step(v):\n    return power_norm(v)\n")
    result = jitscope.lint([str(pkg)], config=False, jobs=1, unknown_callers=True)
    line8 = [f for f in result.findings if f.location.line == 9]
    assert [(f.code, f.severity) for f in line8] == [("JS101", "warning")], line8
    assert "`step`" in line8[0].message and "unknown" not in line8[0].message


def _ns():
    ns: dict = {}
    exec(compile(OPS, "ops.py", "exec"), ns)
    return ns


def test_the_flagged_functions_fail_under_real_jit_and_run_eagerly():
    ns = _ns()
    v = jnp.ones(3)
    ns["power_norm"](v)
    ns["time_end"](1.0, 2.0)
    ns["L2"]().prox(v, 0.1)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(ns["power_norm"])(v)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(ns["time_end"], static_argnums=(0, 1))(1.0, 2.0)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda v: ns["L2"]().prox(v, 0.1))(v)


def test_the_look_alikes_run_under_real_jit():
    ns = _ns()
    v = jnp.ones(3)
    assert jax.jit(ns["soft"], static_argnums=1)(v, 0.5).shape == (3,)
    assert repr(ns["L2"]()).startswith("L2(")  # a display method runs on the host, never under the user's jit
    arr = np.ones(3)  # np_norm on a NumPy array closed over by a jit: the NumPy value stays concrete
    assert jax.jit(lambda x: x + ns["np_norm"](arr))(v).shape == (3,)


NESTED = '''\
import jax
import jax.numpy as jnp


def train(n_updates, n_evals, x):
    per_epoch = jnp.round(n_updates / n_evals)

    def epoch(y):
        return y + jnp.arange(per_epoch).sum()

    epoch = jax.pmap(epoch)
    return epoch(x), float(per_epoch)


def step(x):
    @jax.jit
    def inner(y):
        if y.sum() > 0:
            return y
        return -y

    return inner(x) + jnp.sum(x)
'''


def test_a_jitted_function_nested_in_an_unknown_callers_walk(tmp_path):
    """A nested pmap body reading the outer function's jnp result is judged by the unknown caller (info): eagerly
    the outer value is a concrete array and the pmap runs; and a nested jit's own error is not replaced."""
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(NESTED)
    got = sorted((f.code, f.location.line, f.severity) for f in jitscope.lint([str(pkg)], config=False, jobs=1, unknown_callers=True).findings)
    assert got == [("JS101", 18, "error"), ("JS103", 12, "info"), ("JS303", 9, "info")], got
    ns = _ns_of(NESTED)
    out, n = ns["train"](4.0, 2.0, jnp.ones((1, 3)))  # eagerly: runs (one device, pmap over a leading axis of 1)
    assert n == 2.0 and out.shape == (1, 3)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(ns["train"], static_argnums=(0, 1))(4.0, 2.0, jnp.ones((1, 3)))
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["step"](jnp.ones(3))


def _ns_of(text):
    ns: dict = {}
    exec(compile(text, "train.py", "exec"), ns)
    return ns


def test_display_code_is_not_walked_for_an_unknown_caller(tmp_path):
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "viz.py").write_text(
        "import jax.numpy as jnp\n\n\ndef plot_error(ax, err):\n    if jnp.mean(err) > 0.1:\n        ax.set_title('bad')\n\n\n"
        "def error_summary(err):\n    return float(jnp.mean(err))\n\n\n"
        "def mean_error(err):\n    return float(jnp.mean(err))\n")
    got = [(f.code, f.location.line) for f in jitscope.lint([str(pkg)], config=False, jobs=1, unknown_callers=True).findings]
    assert got == [("JS103", 14)], got  # only the computation a user may jit


def test_the_walk_is_off_unless_asked_and_the_flag_and_config_turn_it_on(tmp_path):
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(OPS)
    assert jitscope.lint([str(pkg)], config=False, jobs=1).findings == []  # the default: no guess about callers
    r = run_cli("lint", "--no-config", "--format", "json", "--exit-zero", "--unknown-callers", str(pkg))
    assert r.returncode == 0, r.stderr
    import json

    codes = sorted((f["code"], f["location"]["line"]) for f in json.loads(r.stdout)["findings"])
    assert codes == [("JS101", 9), ("JS101", 24), ("JS103", 18)], codes
    (tmp_path / "pyproject.toml").write_text("[tool.jitscope]\nunknown-callers = true\n")
    assert len(jitscope.lint([str(pkg)], jobs=2).findings) == 3  # the config, through forked workers too
    assert jitscope.lint([str(pkg)], jobs=1, unknown_callers=False).findings == []  # the argument wins
    (tmp_path / "pyproject.toml").write_text("[tool.jitscope]\nunknown-callers = 'yes'\n")
    r = run_cli("lint", str(pkg), cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("jitscope: ") and "'unknown-callers' must be true or false" in r.stderr
