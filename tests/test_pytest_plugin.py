"""The pytest plugin, run on real test files with real jax through pytester.

The inner sessions run in subprocesses: a second in-process pytest session that re-imports a
module of jitted functions can abort inside XLA, and subprocesses keep xdist workers clean."""

from __future__ import annotations

pytest_plugins = ["pytester"]

TESTS = '''
import jax
import jax.numpy as jnp
import pytest


@jax.jit
def double(x):
    return x * 2


@pytest.mark.jitscope(max_compiles=1)
def test_within_budget():
    double(jnp.ones(2))
    double(jnp.ones(2))
    jnp.ones(9) + 1  # JAX-internal eager compiles never count


@pytest.mark.jitscope(max_compiles=1)
def test_over_budget():
    double(jnp.ones(3))
    double(jnp.ones(4))


@pytest.mark.jitscope(fail_on_recompile=True)
def test_recompile_forbidden():
    f = jax.jit(lambda x: x + 1)
    f(jnp.ones(1))
    f(jnp.ones(5))


def test_unmarked():
    jax.jit(lambda x: x - 1)(jnp.ones(3))


def test_weak_type():
    f = jax.jit(lambda x, y: x * y)
    f(2.0, jnp.ones(3))
    f(jnp.float32(2.0), jnp.ones(3))
'''


def test_marker_fails_tests_over_budget(pytester):
    pytester.makepyfile(test_budget=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.re_match_lines([
        r"jitscope: compile budget exceeded: 2 compiles, budget is 1",
        r"  #0 double at .*test_budget.py:2\d compiled \(first_compile",
        r"  #1 double at .*test_budget.py:2\d compiled \(shape_change: x: f32\[3\] -> f32\[4\]\)",
    ])
    result.stdout.re_match_lines([r".*budget exceeded: recompile #1 of .*<lambda> .*shape_change: x: f32\[1\] -> f32\[5\]"])
    assert "jitscope: compiles per test" not in result.stdout.str()


def test_option_prints_each_tests_compile_summary(pytester):
    pytester.makepyfile(test_budget=TESTS)
    result = pytester.runpytest_subprocess("--jitscope", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=2)
    out = result.stdout.str()
    assert "jitscope: compiles per test" in out
    result.stdout.re_match_lines([
        r" +2 compiles +[\d.]+ ms  test_budget.py::test_over_budget",
        r" +recompile: double at .*test_budget.py:\d+ compiled \(shape_change: x: f32\[3\] -> f32\[4\]\)",
        r" +1 compiles +[\d.]+ ms  test_budget.py::test_unmarked",
    ])
    # each test's runtime findings, paired within the test: the weak-type duplicate of test_within_jit only
    result.stdout.re_match_lines([r" +JW403 test_weak_type.<locals>.<lambda> at test_budget.py:\d+: compile #1 .*weak type"])
    assert out.count("JW403") == 1


def test_bad_marker_arguments_are_a_usage_error(pytester):
    pytester.makepyfile(test_bad='''
import pytest

@pytest.mark.jitscope(max_compile=1)
def test_typo():
    pass
''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*unknown argument(s) max_compile*"])
    assert result.ret != 0


ORDER_TESTS = '''
import jax
import jax.numpy as jnp
import pytest


@jax.jit
def step(x):
    return x * 2


def test_warms_step():
    step(jnp.ones(3))


@pytest.mark.jitscope(fail_on_recompile=True)
def test_marked_recompiles():
    # Alone: step(4) compiles, step(3) recompiles -> fails. Without clearing JAX's caches, after
    # test_warms_step in the same process step(3) would be a cache hit and the test would pass.
    step(jnp.ones(4))
    step(jnp.ones(3))


@pytest.mark.jitscope(max_compiles=1)
def test_marked_one_compile():
    # Alone: 1 compile. After test_marked_recompiles without clearing: 0 (still passes); the
    # counted number itself is checked through --jitscope below.
    step(jnp.ones(3))
'''


def _outcomes(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    out = {}
    for line in result.stdout.lines:
        for word in ("PASSED", "FAILED"):
            if line.startswith(word + " "):
                out[line.split()[1].split("::")[-1].split(" ")[0]] = word
    return out


def test_marked_result_is_the_same_alone_after_others_and_under_xdist(pytester):
    pytester.makepyfile(test_order=ORDER_TESTS)
    base = ("-p", "no:cacheprovider", "-rA", "--jitscope")
    alone = {}
    for name in ("test_marked_recompiles", "test_marked_one_compile"):
        r = pytester.runpytest_subprocess(*base, f"test_order.py::{name}")
        alone.update(_outcomes(r))
        assert "1 compiles" in r.stdout.str() or "2 compiles" in r.stdout.str()
    assert alone == {"test_marked_recompiles": "FAILED", "test_marked_one_compile": "PASSED"}
    in_order = pytester.runpytest_subprocess(*base, "test_order.py")
    assert {k: v for k, v in _outcomes(in_order).items() if k != "test_warms_step"} == alone
    # The marked test that ran after others counted its own compile, as alone.
    in_order.stdout.re_match_lines([r"\s+1 compiles .*test_marked_one_compile"])
    xdist = pytester.runpytest_subprocess(*base, "-n", "2", "test_order.py")
    assert {k: v for k, v in _outcomes(xdist).items() if k != "test_warms_step"} == alone
