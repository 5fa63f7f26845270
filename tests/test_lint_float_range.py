"""JS307: a finite float literal too large for the float type it reaches becomes ``inf`` (checked under real JAX).

The fixture (lint_fixtures/JS307.py, its ``# JS307`` lines checked by tests/test_lint_rules.py) runs here eagerly
and under jit with x64 off: each flagged line yields ``inf`` where the source wrote a finite number (a fully masked
softmax row becomes ``nan``), the look-alikes stay finite (``jnp.finfo(...).min``, ``-1e30``, ``7e4`` in float32,
a comparison, Python arithmetic). With x64 on, the lines that name no dtype keep the finite value, which is why
they are warnings about the default configuration and a file enabling x64 is not checked there.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitscope
from jitscope.lint import lint_source

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS307.py"


@pytest.fixture()
def fixture(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS307", None)
    yield __import__("JS307")
    sys.modules.pop("JS307", None)


def test_js307_names_the_dtype_and_where_the_value_goes():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS307"]).findings
    got = [(f.location.line, f.details["value"], f.details["dtype"]) for f in found]
    assert got == [(6, "-1e100", "float32"), (11, "1e40", "float32"), (15, "1e100", "float32"),
                   (15, "1e39", "float32"), (15, "7e4", "float16")], got


@pytest.mark.parametrize("jitted", [False, True])
def test_flagged_values_become_inf_and_lookalikes_stay_finite(fixture, jitted):
    assert not jax.config.jax_enable_x64
    wrap = jax.jit if jitted else (lambda f: f)
    logits, mask = jnp.ones(3), jnp.zeros(3, bool)  # a fully masked row
    assert np.isnan(np.asarray(wrap(fixture.masked_softmax)(logits, mask))).all()
    assert np.isinf(np.asarray(fixture.penalty(jnp.ones(2)))).all()
    assert all(np.isinf(np.asarray(v)).all() for v in fixture.typed(2))
    fine = jax.jit(fixture.fine, static_argnums=2) if jitted else fixture.fine
    a, b, c, _, d, _ = fine(logits, mask, 2)
    assert np.isfinite(np.asarray(a)).all() and np.isfinite(np.asarray(b)).all() and np.isfinite(np.asarray(c))
    assert np.isinf(np.asarray(d)).all()  # written as -jnp.inf: infinity on purpose, not flagged


def test_with_x64_the_undtyped_lines_stay_finite_and_a_file_enabling_it_is_not_checked(fixture):
    jax.config.update("jax_enable_x64", True)
    try:
        assert np.isfinite(np.asarray(fixture.penalty(jnp.ones(2)))).all()
        assert all(np.isinf(np.asarray(v)).all() for v in fixture.typed(2))  # a named dtype: inf with x64 too
    finally:
        jax.config.update("jax_enable_x64", False)
    text = 'import jax\njax.config.update("jax_enable_x64", True)\n' + FIXTURE.read_text()
    assert {f.location.line - 2 for f in lint_source(text, "m.py") if f.code == "JS307"} == {15}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_the_bound_is_where_real_jax_rounds_to_inf(dtype):
    """A literal just above the largest value rounds down to it (``jnp.float32(3.4028235e38)``, the printed
    float32 max, is finite): JS307 says ``inf`` only from the value real JAX turns into inf."""
    from jitscope.jaxmodel.dtypes import FLOAT_INF_AT, FLOAT_MAX

    make = getattr(jnp, dtype)
    bound = FLOAT_INF_AT[dtype]
    below = float(np.nextafter(bound, 0)) if dtype != "bfloat16" else FLOAT_MAX[dtype] * (1 + 2**-10)
    assert np.isinf(np.asarray(make(bound), np.float32)) and np.isinf(np.asarray(make(-bound), np.float32))
    assert np.isfinite(np.asarray(make(below), np.float32)) and below > FLOAT_MAX[dtype]
    src = f"import jax.numpy as jnp\nA = jnp.{dtype}({bound!r})\nB = jnp.{dtype}({below!r})\n"
    assert [f.location.line for f in lint_source(src, "m.py") if f.code == "JS307"] == [2]
    quiet = "import jax.numpy as jnp\nBIG = jnp.float32(3.4028235e38)\nH = jnp.float16(65510.0)\n"
    assert not [f for f in lint_source(quiet, "m.py") if f.code == "JS307"]
