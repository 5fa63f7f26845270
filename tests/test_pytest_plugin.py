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
'''


def test_marker_fails_tests_over_budget(pytester):
    pytester.makepyfile(test_budget=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
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
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert "jitscope: compiles per test" in out
    result.stdout.re_match_lines([
        r" +2 compiles +[\d.]+ ms  test_budget.py::test_over_budget",
        r" +recompile: double at .*test_budget.py:\d+ compiled \(shape_change: x: f32\[3\] -> f32\[4\]\)",
        r" +1 compiles +[\d.]+ ms  test_budget.py::test_unmarked",
    ])


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
