"""JW501's "time lost" for a program with an effect counts the Python path's own cost, not the program's execution.

Held-out class (issue #24, suites6 re-score, classes only): JW501 "time lost" for a step with `jax.debug.print` was
not true: a program with an effect runs synchronously (its call returns only after the program ran), so the call's
time is mostly execution, which moving the print out would not save. Under `jitscope watch -m pytest`, a helper
module's step with a print, called 60 times: the loss counts at most the Python path's cost measured on a tiny
program with a callback (`details.effect_call_seconds`), and the message says the call waits for the program.
"""

from __future__ import annotations

from conftest import watch_pytest

HELPER = '''
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    for _ in range(6):
        x = jnp.tanh(x @ x)
    jax.debug.print("x00 {}", x[0, 0])                  # an effect: the Python path, and the call waits
    return x


def train(x, n):
    for _ in range(n):
        x = step(x)
    return x
'''

SUITE = '''
import jax.numpy as jnp

import helper


def test_train():
    assert helper.train(jnp.ones((256, 256)) * 1e-3, 60).shape == (256, 256)
'''


def test_the_loss_of_an_effect_program_is_its_dispatch_not_its_execution(tmp_path):
    data = watch_pytest(tmp_path, {"helper.py": HELPER, "test_train.py": SUITE}, "test_train.py")
    found = [f for f in data["findings"] if f["code"] == "JW501"]
    for f in found:                                      # reported only where the dispatch cost itself is material
        d = f["details"]
        assert d["cause"] == "effects" and d["effect_call_seconds"] is not None
        paid = min(d["seconds_per_call"], d["effect_call_seconds"])
        assert abs(d["seconds_lost"] - min(d["slow_calls"] * max(paid - d["fast_call_seconds"], 0.0),
                                           d["total_seconds"])) < 1e-9
        assert "waits for the program to run" in f["message"]
    calls = [f for f in data["findings"] if f["code"] == "JW501" or f["code"].startswith("JW50")]
    assert all(f["location"]["file"].endswith("helper.py") for f in calls), calls
    assert found, data["findings"]
