"""The rule catalog tells the truth: fixture positives really fail (or misbehave) under real jax.jit,
and the look-alike negatives really work. Real JAX on CPU; nothing mocked."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

FIXTURES = Path(__file__).resolve().parent / "lint_fixtures"
_MODULES: dict[str, object] = {}


def fixture(code: str):
    if code not in _MODULES:
        spec = importlib.util.spec_from_file_location(f"lint_fixture_{code}", FIXTURES / f"{code}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _MODULES[code] = mod
    return _MODULES[code]


X = jnp.linspace(-1.0, 2.0, 6)
S = jnp.asarray(1.5)

# (fixture, function, args) that must raise under jit: the rule's positives.
FAILS = [
    ("JS101", "relu", (S,)), ("JS101", "countdown", (X,)), ("JS101", "pick", (S, S)), ("JS101", "checked", (X,)),
    ("JS101", "running_min", (X,)),
    ("JS102", "in_range", (S, 0.0, 2.0)), ("JS102", "either", (X, True)), ("JS102", "negate", (S,)),
    ("JS102", "truthy", (X,)), ("JS102", "clip_max", (S, S)), ("JS102", "clip_min", (S,)), ("JS102", "any_not", (X,)),
    ("JS103", "scale", (X, X)), ("JS103", "first", (X,)), ("JS103", "as_list", (X,)), ("JS103", "count", (X,)),
    ("JS104", "f", (X,)), ("JS104", "g", (X, X)), ("JS104", "h", (X,)),
    ("JS201", "largest", (X,)), ("JS201", "flags", (X,)),
    ("JS301", "sum_negatives", (X,)), ("JS301", "finite", (X,)), ("JS301", "band", (X, 0.0, 1.0)),
    ("JS302", "positive_indices", (X,)), ("JS302", "where_one", (X,)), ("JS302", "uniq", (X,)),
    ("JS302", "method", (X,)), ("JS302", "aw", (X,)),
    ("JS303", "make", (3,)), ("JS303", "ramp", (X, 3)), ("JS303", "grid", (X[:3], 2)), ("JS303", "flat", (X, 2)),
    ("JS601", "reset_first", (X,)), ("JS601", "bump", (X, 0)), ("JS601", "build", (4,)),
    ("JS602", "main", (X.reshape(2, 3),)),
    ("JS602_dataflow", "local_list", (X.reshape(2, 3),)), ("JS602_dataflow", "module_list", (X.reshape(2, 3),)),
    ("JS602_dataflow", "numpy_axes", (X.reshape(2, 3),)), ("JS602_dataflow", "one_way_a_list", (X.reshape(2, 3), True)),
    ("JS602_dataflow", "inline_jit", (X.reshape(2, 3),)), ("JS602_dataflow", "reducer_bound_jit", (X.reshape(2, 3),)),
    ("JS602_dataflow", "reducer_decorated", (X.reshape(2, 3),)),
    ("JS304", "unrolled", (X,)), ("JS304", "head", (X,)), ("JS304", "window", (X, 1)),
    ("JS304", "make_chunks", (X,)), ("JS304", "classes", (jnp.arange(3),)), ("JS304", "reduce_over", (X, 0)),
    ("JS304", "window_sized", (X, 2)), ("JS304", "keys", (jax.random.PRNGKey(0), 2)),
    ("JS106", "run_solver", (S,)), ("JS303", "split_by_sizes", (X,)),  # while_loop rejects the int32 condition that `~False` makes
]
# Look-alike negatives that must work.
WORKS = [
    ("JS101", "negative_static", (X, 3)), ("JS101", "relu_ok", (X,)), ("JS101", "dropout", (X, True)),
    ("JS101", "power", (X, 2)), ("JS101", "shape_branch", (X,)), ("JS101", "optional_arg", (X,)),
    ("JS101", "cond_ok", (X,)), ("JS101", "accumulate", (X, True)),
    ("JS102", "in_range_ok", (X, 0.0, 1.0)), ("JS102", "logical_ok", (X, X)), ("JS102", "static_flags", (X,)),
    ("JS102", "shape_logic", (X,)), ("JS102", "shape_min", (X,)), ("JS102", "clip_ok", (X, X)),
    ("JS102", "iterable_ok", (X, X)),
    ("JS103", "rows", (X,)), ("JS103", "cast_ok", (X,)), ("JS103", "size_ok", (X,)),
    ("JS104", "ok", (X,)), ("JS104", "static_numpy", (X,)), ("JS104", "dtype_ok", (X,)),
    ("JS104", "delegating_ok", (X,)),
    ("JS201", "total_ok", (X,)), ("JS201", "sum_of_list", (S, S, S)), ("JS201", "sum_static", (X,)),
    ("JS201", "two_arg_max", (X,)),
    ("JS301", "sum_negatives_ok", (X,)), ("JS301", "index_ok", (X, 1)), ("JS301", "masked_set", (X,)),
    ("JS302", "positive_indices_ok", (X,)), ("JS302", "where_three", (X,)), ("JS302", "uniq_ok", (X,)),
    ("JS303", "make_ok", (3,)), ("JS303", "like", (X,)), ("JS303", "literal", (S,)),
    ("JS303", "reshape_ok", (X, 2)),
    ("JS601", "reset_first_ok", (X,)), ("JS601", "numpy_ok", (3,)),
    ("JS601", "preprocess", ({"image": X},)), ("JS601", "double_all", ({"a": X, "b": S},)),
    ("JS202", "layers", (X[:2], [jnp.eye(2), jnp.eye(2)])), ("JS202", "comp_small", (X,)),
    ("JS202", "leaves_norm", ({"a": X, "b": S},)),
    ("JS602", "main_ok", (X.reshape(2, 3),)), ("JS602", "with_default", (X,)),
    ("JS602_dataflow", "tuples_ok", (X.reshape(2, 3),)), ("JS602_dataflow", "one_way_a_list", (X.reshape(2, 3), False)),
    ("JS602_dataflow", "reducer_fine", (X.reshape(2, 3),)),
    ("JS106", "mask_ok", (X, X > 1)), ("JS106", "masks_ok", (X,)), ("JS303", "split_ok", (X,)),
    ("JS304", "unrolled_ok", (X,)), ("JS304", "head_ok", (X,)), ("JS304", "window_ok", (X, 1)),
    ("JS304", "window_dynamic", (X, 1)), ("JS304", "make_chunks_ok", (X,)),
    ("JS304", "classes_ok", (jnp.arange(3),)), ("JS304", "repeat_total", (X, 2)), ("JS304", "window_start", (X, 1)),
    ("JS304", "move_to", (X, 1)),
]


@pytest.mark.parametrize("code, fn, args", FAILS, ids=[f"{c}-{f}" for c, f, _ in FAILS])
def test_positive_fails_under_jit(code, fn, args):
    with pytest.raises(Exception) as info:  # noqa: B017 - JAX raises several error types
        getattr(fixture(code), fn)(*args)
    assert not isinstance(info.value, (NameError, AttributeError, SyntaxError)), info.value


@pytest.mark.parametrize("code, fn, args", WORKS, ids=[f"{c}-{f}" for c, f, _ in WORKS])
def test_negative_works_under_jit(code, fn, args):
    getattr(fixture(code), fn)(*args)


def test_js401_print_runs_only_while_tracing(capsys):
    step = fixture("JS401").step
    step(X)
    step(X + 1)
    assert capsys.readouterr().out.count("x =") == 1


def test_js402_global_assignment_runs_once():
    mod = fixture("JS402")
    mod.step(X)
    mod.step(X + 1)
    assert mod.counter == 1


def test_js502_global_value_is_stale():
    mod = fixture("JS502")
    first = float(mod.f(1.0))
    mod.g = 100.0
    assert float(mod.f(1.0)) == first  # the compiled graph kept the old value of g


def test_js201_fix_is_unsafe_because_jnp_sum_differs_from_sum():
    """Why `sum(x)` -> `jnp.sum(x, axis=0)` is an unsafe fix: real differences under jit."""
    import jax

    from jitscope.lint.registry import all_rules

    builtin = jax.jit(lambda x: sum(x))
    fixed = jax.jit(lambda x: jnp.sum(x, axis=0))
    small = jnp.array([100, 100], dtype=jnp.int8)
    assert builtin(small).dtype == jnp.int8 and int(builtin(small)) == -56  # wraps around
    assert fixed(small).dtype == jnp.int32 and int(fixed(small)) == 200
    flags = jnp.array([True, True])
    assert builtin(flags).weak_type and not fixed(flags).weak_type
    empty = jnp.zeros((0, 3))
    assert builtin(empty).shape == () and fixed(empty).shape == (3,)
    ws = [jnp.ones(2), jnp.ones(2)]
    assert builtin(ws).shape == (2,)
    with pytest.raises(TypeError):
        fixed(ws)
    assert all_rules()["JS201"].fix == "unsafe"


def test_js602_safe_fix_turns_a_call_that_always_raised_into_the_tuple_call(tmp_path):
    """The only safe fix: under real jit the list call raises; after `--fix` it runs and equals the tuple call."""
    import subprocess
    import sys

    import jitscope

    src = tmp_path / "static_list.py"
    src.write_text(
        "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
        "@partial(jax.jit, static_argnames='axes')\ndef total(x, axes=[0]):\n    return x.sum(axis=tuple(axes))\n\n\n"
        "x = jnp.arange(6.0).reshape(2, 3)\n"
        "print(float(total(x, axes=[0, 1])), total(x, axes={1}).tolist(), total(x).tolist())\n")

    def run():
        return subprocess.run([sys.executable, str(src)], capture_output=True, text=True,
                              env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})

    before = run()
    assert before.returncode == 1 and "Non-hashable static arguments" in before.stderr
    result = jitscope.lint([str(src)], fix=True)
    assert result.fixes_applied == 2  # the two call sites; the list default (unsafe) is left alone
    text = src.read_text()
    assert "axes=(0, 1)" in text and "axes=frozenset({1})" in text and "axes=[0]" in text
    assert [f.severity for f in result.findings if f.code == "JS602"] == ["warning"]  # the default remains
    after = run()
    assert after.returncode == 0, after.stderr
    assert after.stdout.split() == ["15.0", "[3.0,", "12.0]", "[3.0,", "5.0,", "7.0]"]
