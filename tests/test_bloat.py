"""The graph-bloat detector on real traced programs (tests/fixtures/inspect_bloat.py)."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitscope.analyze.bloat import _find_runs, detect_bloat

SRC = Path(__file__).parent / "fixtures" / "inspect_bloat.py"


def marked(kind: str) -> list[int]:
    return [i for i, line in enumerate(SRC.read_text().splitlines(), 1) if line.rstrip().endswith(f"# BLOAT: {kind}")]


def runs_of(fn, *args):
    return detect_bloat(jax.jit(fn).trace(*args).jaxpr, fn.__code__)


@pytest.fixture(scope="module")
def m():
    import sys

    sys.path.insert(0, str(SRC.parent))
    import inspect_bloat

    return inspect_bloat


def test_loop_calling_a_helper_points_at_the_loop(m):
    [run] = runs_of(m.loop_calls_helper, jnp.ones(4))
    assert run.kind == "python_loop" and run.repeats == 40 and run.pattern_size == 3 and run.carried
    assert run.location.line in marked("python_loop")
    assert "for _ in range(40)" in run.source
    assert "fori_loop" in run.fix.title


def test_multi_line_body_points_at_the_for(m):
    [run] = runs_of(m.multi_line_body, jnp.ones(4))
    assert run.source.startswith("for i in range(30)") and run.repeats == 30


def test_comprehension_suggests_vmap(m):
    [run] = runs_of(m.comprehension, jnp.ones(32))
    assert run.kind == "comprehension" and run.repeats == 25 and not run.carried
    assert run.location.line == marked("comprehension")[0]
    assert "vmap" in run.fix.title


def test_independent_loop_suggests_vmap(m):
    [run] = runs_of(m.independent_loop, jnp.ones(32))
    assert run.kind == "python_loop" and not run.carried and "vmap" in run.fix.title


def test_reduce_is_a_builtin_reduction(m):
    [run] = runs_of(m.builtin_max, jnp.ones(30))
    assert run.kind == "builtin_reduction" and run.repeats >= 28


def test_key_twice_per_repeat(m):
    [run] = runs_of(m.twice_per_step, jnp.ones(4))
    assert run.repeats == 16 and run.pattern_size == 4 and run.pattern == ["sin", "mul", "sin", "add"]


def test_two_runs_in_one_function(m):
    runs = runs_of(m.two_sums, jnp.ones(40), jnp.ones(30))
    assert sorted(r.location.line for r in runs) == marked("builtin_reduction")[1:]
    assert sorted(r.repeats for r in runs) == [30, 40]


@pytest.mark.parametrize("name", ["small_loop", "vectorised"])
def test_no_bloat(m, name):
    assert runs_of(getattr(m, name), jnp.ones(8)) == []


def test_find_runs_on_plain_keys():
    keys = [9, 9] + [1, 2, 3] * 20 + [7] + [4, 5] * 12
    runs = _find_runs(keys, min_repeats=8, min_equations=16)
    assert runs == [(2, 62, 3), (63, 87, 2)]
    assert _find_runs(list(range(100)), 8, 16) == []


def test_synthetic_program_size(m):
    closed, body = m.synthetic(4000)
    [run] = detect_bloat(closed, body.__code__)
    assert run.repeats == 1000 and run.pattern_size == 4 and run.equations == 4000


def test_builtin_sum_over_a_generator_has_no_textual_replacement(m):
    [run] = runs_of(m.generator_sum, jnp.ones(20))
    assert run.kind == "builtin_reduction" and run.location.line == marked("generator")[0]
    assert run.fix.replacement is None and "vectorised" in run.fix.title
