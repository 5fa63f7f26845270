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
