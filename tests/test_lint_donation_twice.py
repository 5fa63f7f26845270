"""JS610's "twice" case (lint/donation.py ``_passed_twice``): one array passed twice to a call that donates it.

The executable receives one buffer for two arguments and refuses it at every call, on CPU too; the fixture
(lint_fixtures/JS610_twice.py, its ``# JS610`` lines checked by tests/test_lint_rules.py) runs each flagged function
under real jax.jit and requires that error, and the look-alikes (a copy, two arrays) to run.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS610_twice.py"


def test_lint_reports_each_double_pass():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS610"]).findings
    assert [(f.location.line, f.severity) for f in found] == [(23, "warning"), (27, "warning"), (32, "warning"),
                                                                    (59, "warning")]
    assert "twice" in found[0].message


@pytest.mark.parametrize("case", range(3))
def test_each_flagged_call_raises_at_every_call(lint_fixture, case):
    fn = lint_fixture("JS610_twice").FLAGGED[case]
    with pytest.raises(Exception, match="donate"):
        fn(jnp.ones(4))


def test_the_look_alikes_run(lint_fixture):
    fixture = lint_fixture("JS610_twice")
    fixture.copied(jnp.ones(4))
    fixture.distinct(jnp.ones(4), jnp.ones(4))
    fixture.self_step(np.ones(4))  # why a warning: a NumPy array passed twice is copied per argument and runs


def test_host_values_passed_twice_run_and_the_device_twin_raises(lint_fixture):
    """A name bound only to a number or a NumPy constructor is a host value: jit makes one device buffer per
    argument, so passing it twice to a donating call runs; rebound to a JAX array it is one buffer and raises."""
    fixture = lint_fixture("JS610_twice")
    for fn in fixture.HOST:
        fn()
    with pytest.raises(Exception, match="donate"):
        fixture.host_then_device()
