"""Cost advice about a test's own lines: under `jitscope watch -m pytest`, a per-step cost at a test line that cost
the run little is the test's speed, not advice (advice_scope.test_speed_only).

A held-out scorer (issue #24, suites5): JW502 (5: test loops reading scalars to assert) and JW405 (3: a test varying
sizes on purpose) were true and not actionable. The same cost in the program's code stays reported. (JW405 at a line
of a file named like a test was left out before, by `jaxmodel.deliberate`; the sizes case here keeps it so.)
"""

from __future__ import annotations

from conftest import watch_pytest

HELPER = '''
from heavy_step import heavy_step as work, next_batch, start


def total(f, x):
    out, w = 0.0, start()
    for _ in range(60):
        next_batch()                       # the host's own work per step (the next batch)
        w, s = work(w)
        out += float(f(x)) + 0.0 * float(s)  # the program's own loop: a round trip per iteration
    return out
'''

SUITE = '''
import jax
import jax.numpy as jnp

import helper


def test_reads_each_step():
    f = jax.jit(lambda x: jnp.sum(x * 2.0))
    for i in range(60):
        assert float(f(jnp.ones(3) * i)) == 6.0 * i    # the test asserts on every step


def test_sizes():
    g = jax.jit(lambda x: x + 1.0)
    for n in (1, 2, 3, 4):
        assert g(jnp.ones(n)).shape == (n,)              # the test varies the size on purpose


def test_program_loop():
    assert helper.total(jax.jit(lambda x: jnp.sum(x)), jnp.ones(2)) == 120.0
'''


def test_a_small_cost_at_a_tests_line_is_not_advice(tmp_path):
    data = watch_pytest(tmp_path, {"helper.py": HELPER, "test_speed.py": SUITE}, "test_speed.py")
    # compiles: the asserting test's function, the 4 sizes, the program loop's lambda and its heavy step
    assert len(data["events"]) == 1 + 4 + 2
    cost = sorted((f["code"], f["location"]["file"].rsplit("/", 1)[-1]) for f in data["findings"]
                  if f["code"] in ("JW405", "JW502"))
    assert cost == [("JW502", "helper.py")]
