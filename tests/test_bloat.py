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


@pytest.mark.parametrize(("name", "args", "expected"), [
    # 40 elements: a run of 40 adds is bloat however JAX iterates the array (slice+squeeze+add per
    # element up to 0.10, one unstack then the adds in 0.11)
    ("sum_with_start", (jnp.arange(40.0),), "jnp.sum(x, axis=0) + 0.5"),
    ("sum_with_start_keyword", (jnp.arange(40.0), jnp.float32(3.0)), "jnp.sum(x * 2, axis=0) + s"),
    ("sum_of_rows", (jnp.arange(120.0).reshape(40, 3),), "jnp.sum(m, axis=0)"),
])
def test_builtin_sum_replacement_computes_the_same_thing(m, name, args, expected):
    fn = getattr(m, name)
    [run] = runs_of(fn, *args)
    assert run.kind == "builtin_reduction" and run.fix.replacement == expected
    assert "int8/bool" in run.fix.description and "Suggested" in run.fix.description
    # The replacement, evaluated with the function's own arguments, gives the builtin's result.
    params = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    got = eval(run.fix.replacement, {"jnp": jnp}, dict(zip(params, args, strict=True)))  # noqa: S307
    want = fn(*args)
    assert got.shape == want.shape and jnp.allclose(got, want)


@pytest.mark.parametrize(("src", "builtin"), [
    ("y = max(x, key=abs)\n", "max"), ("y = min(x, default=0)\n", "min"), ("y = sum(*xs)\n", "sum"),
    ("y = sum(x, 0, extra=1)\n", "sum"), ("y = any(x, y)\n", "any"),
])
def test_no_replacement_text_for_other_arguments(tmp_path, src, builtin):
    import ast

    from jitscope.analyze.bloat_source import _reduction_text

    path = tmp_path / "user.py"
    path.write_text(src)
    call = ast.parse(src).body[0].value
    assert _reduction_text(builtin, call, str(path)) == ""


@pytest.mark.parametrize(("builtin", "src", "expected"), [
    ("max", "y = max(x)\n", "jnp.max(x, axis=0)"), ("all", "y = all(v > 0)\n", "jnp.all(v > 0, axis=0)"),
    ("sum", "y = sum(x, a + b)\n", "jnp.sum(x, axis=0) + (a + b)"),
])
def test_replacement_text_for_other_reductions(tmp_path, builtin, src, expected):
    import ast

    from jitscope.analyze.bloat_source import _reduction_text

    path = tmp_path / "user.py"
    path.write_text(src)
    assert _reduction_text(builtin, ast.parse(src).body[0].value, str(path)) == expected


def test_nested_loops_point_at_the_outer_loop(m):
    [run] = runs_of(m.nested_loops, jnp.ones(6))
    outer = marked("nested")[0]
    assert run.repeats == 36 and run.pattern_size == 7
    assert run.location.line == outer and run.source.startswith("for i in range(6)")
    assert run.construct == f"nested loops lines {outer}-{outer + 1} (6x6)"


def test_nested_loops_with_an_unknown_outer_count(m):
    [run] = runs_of(m.nested_unknown_outer, jnp.ones(5))
    outer = marked("nested_unknown")[0]
    assert run.repeats == 20 and run.location.line == outer
    assert run.construct == f"nested loops lines {outer}-{outer + 1} (?x4)"


def test_single_loop_keeps_its_own_construct(m):
    [run] = runs_of(m.loop_calls_helper, jnp.ones(4))
    assert run.construct == "Python loop"


def test_loop_in_a_scan_body_counts_the_first_iteration(m):
    # The carry starts as the weak-typed literal 0.0: iteration 1 adds convert_element_type equations.
    [run] = runs_of(m.scan_with_loop, jnp.ones(4))
    assert run.body == "scan" and run.location.line == marked("scan_loop")[0]
    assert run.repeats == 12 and run.pattern == ["mul", "tanh", "add"]
    assert run.equations >= 12 * 3


def test_python_float_carry_counts_the_first_iteration(m):
    # acc = 0.0: iteration 1 has no `acc * 2` equation (Python float arithmetic).
    [run] = runs_of(m.literal_first_carry, jnp.ones(10))
    assert run.repeats == 10 and run.pattern_size == 5 and run.equations == 10 * 5 - 1
    assert run.location.line == marked("literal_carry")[0]
