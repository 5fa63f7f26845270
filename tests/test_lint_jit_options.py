"""JS613: a jit option that takes names given positions (or positions given names), built under real JAX.

tests/lint_fixtures/JS613.py (its ``# JS613`` lines checked by tests/test_lint_rules.py) is imported here: every
flagged builder raises TypeError when JAX builds the jit, every look-alike builds a jit that runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax.numpy as jnp
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS613.py"


@pytest.fixture()
def mod(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS613", None)
    yield __import__("JS613")
    sys.modules.pop("JS613", None)


@pytest.mark.parametrize("fn", ["build_positions_as_names", "build_names_as_positions", "build_donate_names",
                                "build_decorated", "build_pmap"])
def test_flagged_options_raise_when_the_jit_is_built(mod, fn):
    with pytest.raises(TypeError, match="not a string|cannot be interpreted as an integer"):
        getattr(mod, fn)()


@pytest.mark.parametrize("fn", ["build_right", "build_right_positions"])
def test_look_alikes_build_and_keep_the_flag_static(mod, fn):
    out = getattr(mod, fn)()(jnp.ones(2), jnp.zeros(2), "cosine", True)
    assert float(out.sum()) == 2.0


def test_js613_is_an_error_at_the_literal():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS613"]).findings
    assert [f.location.line for f in found] == [13, 17, 21, 25, 33]
    assert {f.severity for f in found} == {"error"}
    assert "static_argnums" in found[0].message and "bound at line 12" in found[0].message
