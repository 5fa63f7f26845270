"""Look-alike negatives from the real-library lint review: they run under real jax.jit, and lint keeps quiet.

tests/lint_lookalikes/review_negatives.py holds one function per false-positive class found by
benchmarks/lint_review.py that issue #13's list does not name (see benchmarks/RESULTS.md). Each
must work under real jax.jit (checked here, nothing mocked) and draw no finding of the rule that
flagged its original. Classes the linter still gets wrong are strict xfails: when a fix lands the
test turns XPASS and fails, so the marker has to go.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.lint import lint_source

PATH = Path(__file__).resolve().parent / "lint_lookalikes" / "review_negatives.py"
X = jnp.arange(6.0)
KEY = jax.random.key(0)


def _module():
    spec = importlib.util.spec_from_file_location("lint_lookalike_review_negatives", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _check(mod, name):
    """Call the case under jit and check the value it computes."""
    if name == "scale":
        np.testing.assert_allclose(mod.scale(X, X), 3 * X)
    elif name == "pairs":
        assert mod.pairs(jnp.arange(5.0)).shape == (3, 2)
    elif name == "part_sums":
        np.testing.assert_allclose(jnp.stack(mod.part_sums(X)), [1.0, 5.0, 9.0])
    elif name == "apply_double":
        np.testing.assert_allclose(mod.apply_double(X), 2 * X)
    elif name == "with_state":
        np.testing.assert_allclose(mod.with_state(X), X)
    elif name == "sample_params":
        out = mod.sample_params(KEY)
        assert sorted(out) == ["a", "b"] and 0.0 <= float(out["a"]) <= 1.0 <= float(out["b"]) <= 2.0
    elif name == "clamp":
        np.testing.assert_allclose(mod.clamp(X, (jnp.float32(1), jnp.float32(3))), jnp.clip(X, 1, 3))
    elif name == "train_step":
        assert mod.train_step(X)[1].shape == (4, 6)
    elif name == "shifted":
        assert mod.shifted(X).shape == (6, 2)
    elif name == "shrink":
        assert mod.shrink(X).shape == (2,)
    elif name == "step":
        assert float(mod.run_steps()) == 4.0  # the rebound value (5) is the one traced
    elif name == "to_tau":
        np.testing.assert_allclose(mod.to_tau(mod.System(3, jnp.float32(2.0)), jnp.float32(1.0)), [2.0, 0, 0])
    elif name == "checked_rate":
        np.testing.assert_allclose(mod.checked_rate(jnp.float32(0.5), X), 0.5 * X)
    elif name == "transition":  # traced by lax.cond in `pick`
        assert float(mod.pick(True, jnp.float32(1.0))) == 2.0
    elif name == "run_inference":
        assert mod.run_inference(jnp.float32(0.0), 3, 1.0)[1].shape == (3,)
    elif name == "train_and_evaluate":
        np.testing.assert_allclose(jnp.stack(mod.train_and_evaluate([X, X], 1.0)), [X + 1, X + 1])
    elif name == "clear":
        assert int(mod.clear(jnp.zeros(3, jnp.int32), 1)[1]) == -1
    elif name == "sim_step":
        np.testing.assert_allclose([mod.first_run, mod.second_run()], [0.3, 1.5], rtol=1e-6)
    elif name == "dispatch":
        np.testing.assert_allclose(mod.dispatch(X), 2 * X)
    elif name == "scan_with_shapes":
        out, shapes = mod.scan_with_shapes(X)
        assert shapes == [[()]] and out[1].shape == (6,)
    elif name == "fold":
        assert mod.fold(jnp.ones((2, 3))).shape == (6,)
    elif name == "momenta":
        out = mod.momenta(KEY, {"a": X, "b": jnp.ones((2, 2))})
        assert out["b"].shape == (2, 2)
    elif name == "counted":
        assert float(mod.counted()) == 1.0
    elif name == "converged_cases":
        assert mod.converged_cases([X, -X]) == 1
    elif name == "neighbor_list_fn":
        np.testing.assert_allclose(mod.neighbor_list_fn(X), X + 1)  # eager: the branch runs
        np.testing.assert_allclose(jax.jit(mod.neighbor_list_fn)(X, X), X)  # traced: it does not
    elif name == "line_search":
        np.testing.assert_allclose(mod.line_search_jit(True, 2, X), 2 * jnp.sin(jnp.sin(X)), rtol=1e-6)
    elif name == "invert":
        np.testing.assert_allclose(mod.invert(X), -X)
    elif name == "adapt":
        assert mod.adapt(jnp.float32(1.0), 3, 1.0)[1].shape == (3,)
    elif name == "legal_from":
        assert int(mod.legal_from(jnp.int32(10), 0)[0]) == 3
    else:  # pragma: no cover - a case without a check is a defect of this file
        raise AssertionError(name)


def _span(name: str) -> tuple[int, int]:
    """Lines of the function ``name`` (from its first definition to the end of its last one)."""
    tree = ast.parse(PATH.read_text())
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if defs:
        return defs[0].lineno, defs[-1].end_lineno
    raise AssertionError(f"no function {name}")


def _still_flagged(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"still flagged: {reason}")


# (function, rule that flagged the original, marks)
CASES = [
    pytest.param("scale", "JS101", id="partial-bound-arg"),
    pytest.param("pairs", "JS303", id="static-shape-fn"),
    pytest.param("part_sums", "JS202", id="list-returning-fn"),
    pytest.param("apply_double", "JS502", id="import-time-registry"),
    pytest.param("with_state", "JS101", id="sentinel"),
    pytest.param("sample_params", "JS202", id="loop-over-dict-zip"),
    pytest.param("clamp", "JS101", id="container-truthiness"),
    pytest.param("train_step", "JS204", id="jit-inside-traced"),
    pytest.param("shifted", "JS501", id="small-constant"),
    pytest.param("shrink", "JS202", id="static-config-loop"),
    pytest.param("step", "JS502", id="notebook-rebind"),
    pytest.param("to_tau", "JS101,JS303", id="pytree-method-size"),
    pytest.param("checked_rate", "JS101,JS102", id="concretization-handled"),
    pytest.param("transition", "JS101,JS202,JS303", id="tuple-default"),
    pytest.param("run_inference", "JS204", id="scan-driver"),
    pytest.param("train_and_evaluate", "JS204", id="step-handed-to-helper"),
    pytest.param("clear", "JS502", id="same-value-rebind"),
    pytest.param("sim_step", "JS502", id="notebook-redefinition"),
    pytest.param("dispatch", "JS502", id="type-registry"),
    pytest.param("scan_with_shapes", "JS403", id="shapes-recorded"),
    pytest.param("fold", "JS401", id="static-diagnostic"),
    pytest.param("momenta", "JS202", id="zip-leaves"),
    pytest.param("counted", "JS503", id="param-shadows-closure"),
    pytest.param("converged_cases", "JS207", id="test-file-host-sync"),
    pytest.param("line_search", "JS101", id="partial-static-argnums"),
    pytest.param("invert", "JS502", id="registry-lookup"),
    pytest.param("adapt", "JS204", id="outer-closure-driver"),
    pytest.param("legal_from", "JS501", id="negated-table"),
    # lax.cond traces its branch at the call, after `if neighbors is None: return` (lint/narrow.py)
    pytest.param("neighbor_list_fn", "JS101", id="eager-path"),
]
# Linted under this name, not its path under tests/: trace-time rules (JS204, JS207, JS401-JS403) keep
# quiet in test files, which would make their cases pass for the wrong reason. The one case about
# test files is linted as one.
AS_FILE = "lookalikes/review_negatives.py"
AS_TEST_FILE = {"converged_cases": "tests/elasticity_test.py"}
NAMES = [c.values[0] for c in CASES]


@pytest.mark.parametrize("name", NAMES)
def test_lookalike_works_under_jit(name):
    _check(_module(), name)


@pytest.mark.parametrize("name, code", CASES)
def test_lookalike_not_flagged(name, code):
    first, last = _span(name)
    findings = lint_source(PATH.read_bytes(), AS_TEST_FILE.get(name, AS_FILE), select=code.split(","))
    hits = [f for f in findings if first <= f.location.line <= last]
    assert not hits, "\n".join(f"{f.location.line}: {f.code} {f.message}" for f in hits)
