"""Under `jitscope watch -m pytest`, shape churn (JW405) and cache growth (JW407) count within one test.

Held-out classes (issue #24, suites6 re-score, classes only): JW405 x10 where each test picked its own problem size
through a library's call site (the library's jitted function saw a new shape per test: "pad to fixed sizes" cannot
pad across tests), and JW407 counting compiles spread over a suite's tests (they do not grow with any one program's
length). A churn of sizes, or a cache that keeps growing, within one test stays reported. The helper module below is
called by the tests, so its jit call site is not a test's line (the library's call site of the held-out class).
"""

from __future__ import annotations

from conftest import watch_pytest

SOLVER = '''
import jax
import jax.numpy as jnp

_step = jax.jit(lambda x: x * 2.0)
_grow = jax.jit(lambda x: x + 1.0)


def solve(n):
    return _step(jnp.ones(n))            # the library's call site: the test's n decides the shape


def sweep(sizes):
    return [_grow(jnp.ones(n)) for n in sizes]   # one test walks many sizes through one jitted function
'''

SUITE = '''
import pytest

import solver


def test_a_sweep_inside_one_test():
    assert len(solver.sweep(range(1, 19))) == 18


@pytest.mark.parametrize("n", list(range(1, 19)))
def test_one_size_per_test(n):
    assert solver.solve(n).shape == (n,)
'''


def _codes(data, file):
    return sorted(f["code"] for f in data["findings"]
                  if f["code"] in ("JW405", "JW407") and f["location"]["file"].endswith(file))


def test_shapes_chosen_per_test_are_not_churn_but_a_churn_in_one_test_is(tmp_path):
    data = watch_pytest(tmp_path, {"solver.py": SOLVER, "test_sizes.py": SUITE}, "test_sizes.py")
    user = [e for e in data["events"] if e["function"] == "<lambda>"]
    assert len(user) == 18 + 18                           # every size compiled: the counts are watch's, unchanged
    assert len({e["test"] for e in user}) == 1 + 18       # each compile carries its test
    sweep = [f for f in data["findings"] if f["code"] in ("JW405", "JW407")]
    assert sorted(f["code"] for f in sweep) == ["JW405", "JW407"], sweep
    assert all("sweep" in f["location"]["function"] or f["location"]["line"] == 14 for f in sweep), sweep
    assert all(f["details"]["compiles"] == 18 for f in sweep)


def test_cache_growth_counts_within_a_test_even_when_the_suite_ends_at_the_last_compile(tmp_path):
    """The live run's wall time includes pytest's start and end; re-analysed as if the suite ended at its last
    compile (a long suite of one-size tests, the held-out shape), the per-test tests still give no JW407."""
    from jitscope.analyze.recompile_patterns import growth_findings
    from jitscope.results import load_result

    watch_pytest(tmp_path, {"solver.py": SOLVER, "test_sizes.py": SUITE}, "test_sizes.py")
    events = load_result(tmp_path / "run.json").events
    found = growth_findings(events, max(e.timestamp for e in events))
    assert [f.location.line for f in found] == [14]       # the sweep inside one test, not solve() across tests
