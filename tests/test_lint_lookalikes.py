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
    else:  # pragma: no cover - a case without a check is a defect of this file
        raise AssertionError(name)


def _span(name: str) -> tuple[int, int]:
    tree = ast.parse(PATH.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node.lineno, node.end_lineno
    raise AssertionError(f"no function {name}")


def _still_flagged(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"still flagged: {reason}")


# (function, rule that flagged the original, marks)
CASES = [
    pytest.param("scale", "JS101", marks=_still_flagged("partial-bound keyword argument seen as traced"), id="partial-bound-arg"),
    pytest.param("pairs", "JS303", id="static-shape-fn"),
    pytest.param("part_sums", "JS202", marks=_still_flagged("jnp.split result seen as an array"), id="list-returning-fn"),
    pytest.param("apply_double", "JS502", marks=_still_flagged("import-time registry seen as mutated state"), id="import-time-registry"),
    pytest.param("with_state", "JS101", marks=_still_flagged("sentinel default seen as traced"), id="sentinel"),
    pytest.param("sample_params", "JS202", marks=_still_flagged("zip with dict.items() seen as an array loop"), id="loop-over-dict-zip"),
    pytest.param("clamp", "JS101", marks=_still_flagged("tuple-annotated argument seen as a tracer"), id="container-truthiness"),
    pytest.param("train_step", "JS204", id="jit-inside-traced"),
    pytest.param("shifted", "JS501", marks=_still_flagged("two-element array constant"), id="small-constant"),
    pytest.param("shrink", "JS202", marks=_still_flagged("range(len(static tuple)) loop"), id="static-config-loop"),
    pytest.param("step", "JS502", id="notebook-rebind"),
]
NAMES = [c.values[0] for c in CASES]


@pytest.mark.parametrize("name", NAMES)
def test_lookalike_works_under_jit(name):
    _check(_module(), name)


@pytest.mark.parametrize("name, code", CASES)
def test_lookalike_not_flagged(name, code):
    first, last = _span(name)
    findings = lint_source(PATH.read_bytes(), str(PATH), select=[code])
    hits = [f for f in findings if first <= f.location.line <= last]
    assert not hits, "\n".join(f"{f.location.line}: {f.code} {f.message}" for f in hits)
