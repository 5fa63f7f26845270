"""Look-alike negatives from the issue #25 tuning review: each runs under real JAX, and lint keeps quiet.

tests/lint_lookalikes/tuning_negatives.py holds one function per wrong-finding class found on the
tuning libraries (benchmarks/RESULTS.md, "issue #25 tuning review"); each class was fixed in the
tracing model (or the rule's premise), not by matching its shape. Each case must work under real JAX
(checked here) and draw no finding of the rule that flagged its original. The previous linter
flagged every one of them (``PREVIOUS``).
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

PATH = Path(__file__).resolve().parent / "lint_lookalikes" / "tuning_negatives.py"
X = jnp.arange(1.0, 5.0)


def _module():
    spec = importlib.util.spec_from_file_location("lint_lookalike_tuning_negatives", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _span(names: str) -> list[tuple[int, int]]:
    tree = ast.parse(PATH.read_text())
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names.split(","):
            out.append((node.lineno, node.end_lineno))
    assert out, names
    return out


# (functions whose lines must stay quiet, rule, how the case runs)
CASES = [
    pytest.param("_channels_last,flip_left_right", "JS102", lambda m: m.random_flip(jax.random.key(0), X[None]),
                 id="body-default"),
    pytest.param("spline_ends", "JS101,JS102", lambda m: m.spline_ends(X, ("periodic", "periodic")),
                 id="filter-jit-strings"),
    pytest.param("voltage_step", "JS104,JS303",
                 lambda m: m.run_voltage_step(jnp.ones((2, 3)), jnp.ones((2, 3)), np.array([3, 1])),
                 id="vmap-none-tail"),
    pytest.param("_validate_count", "JS103,JS104", lambda m: m.allocate(X, 2), id="typeerror-fallback"),
    pytest.param("grid_points", "JS202", lambda m: m.grid_points(X), id="meshgrid-list"),
    pytest.param("host_sync", "JS204", lambda m: m.host_sum(X), id="global-cache"),
    pytest.param("minimize_step", "JS502", lambda m: m.minimize_step(X), id="script-rebind"),
    pytest.param("clamp_twice", "JS503", lambda m: m.clamp_twice(X), id="def-in-force"),
    pytest.param("solve_both", "JS503", lambda m: m.solve_both(X), id="no-call-after-rebind"),
    pytest.param("update_metric_values", "JS601",
                 lambda m: m.update_metric_values(X, {"mean": m.Average(0.0, 0), "max": m.Average(0.0, 0)}),
                 id="dict-of-objects"),
    pytest.param("long_program", "JS202", lambda m: m.long_jaxpr(X), id="make-jaxpr-loop"),
    pytest.param("resample_indices", "JS103", lambda m: m.resample(jax.random.key(0), X, 3), id="passed-not-none"),
    pytest.param("NeighborList", "JS103,JS104", lambda m: m.count_edges(jnp.arange(-1, 3)), id="pytree-host-methods"),
]


@pytest.mark.parametrize("names, code, run", CASES)
def test_lookalike_runs_under_real_jax(names, code, run):
    run(_module())


@pytest.mark.parametrize("names, code, run", CASES)
def test_lookalike_not_flagged(names, code, run):
    findings = lint_source(PATH.read_bytes(), "lookalikes/tuning_negatives.py", select=code.split(","))
    hits = [f for f in findings for first, last in _span(names) if first <= f.location.line <= last]
    assert not hits, "\n".join(f"{f.location.line}: {f.code} {f.message}" for f in hits)


def test_script_rebind_still_flagged_when_the_reader_runs_again():
    """The same script with the old reader called after the rebinding: stale, and reported."""
    src = PATH.read_text() + "\nagain = minimize_step(jnp.ones(3))\n"
    findings = lint_source(src, "lookalikes/tuning_negatives.py", select=["JS502"])
    (first, last), = _span("minimize_step")
    assert [f for f in findings if first <= f.location.line <= last]
    # real jit: the call after the rebinding still runs the old step_fn (0.9), not the new one (1.5)
    assert float(_module().minimize_step(jnp.ones(3))[0]) == pytest.approx(0.9)
