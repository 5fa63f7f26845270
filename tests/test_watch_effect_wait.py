"""JW501's "time lost" for a program with an effect counts the Python path, not the program's execution.

Held-out class (issue #24, suites6 re-score, classes only): JW501 "time lost" for a step with `jax.debug.print` was
not true: a program with an effect runs synchronously (its call returns only after the program ran), so the call's
time is mostly execution, which moving the print out would not save. The collector times each call's part after
JAX's `_infer_params`; beyond a whole call of a tiny program with a no-op callback it is execution
(`details.execution_seconds_per_call`), not counted as lost but for what the host's time between calls could have
overlapped. (An earlier fix capped every call at that reference and silenced tiny programs' true findings in
tests/test_watch_dispatch.py; there the calls never wait longer than the reference and are charged in full.)
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
    assert found, data["findings"]
    for f in found:
        d = f["details"]
        assert d["cause"] == "effects" and d["execution_seconds_per_call"] > 0
        assert d["paid_seconds_per_call"] < d["seconds_per_call"]
        assert abs(d["seconds_lost"] - min(d["slow_calls"] * max(d["paid_seconds_per_call"] - d["fast_call_seconds"],
                                                                  0.0), d["total_seconds"])) < 1e-9
        assert "for its program to run" in f["message"]
    calls = [f for f in data["findings"] if f["code"].startswith("JW50")]
    assert all(f["location"]["file"].endswith("helper.py") for f in calls), calls


def test_an_ordered_callback_in_a_heavy_loop_keeps_only_the_overlap_the_host_could_have_used():
    """The look-alike: an ordered ``io_callback`` in a heavy program, called in a script's loop with host work between
    calls. The execution is taken out of the loss, the host's time between calls (what async dispatch would have
    overlapped) stays in, so the loss per call is at least that host time, up to the execution."""
    import time

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import io_callback

    import jitscope

    @jax.jit
    def step(x):
        for _ in range(6):
            x = jnp.tanh(x @ x)
        io_callback(lambda v: np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), x[0, 0], ordered=True)
        return x

    x = jnp.ones((256, 256)) * 1e-3
    with jitscope.watch(slow_compile=600) as w:
        for _ in range(30):
            time.sleep(0.002)
            x = step(x)
    (f,) = [f for f in w.result().findings if f.code == "JW501"]
    d = f.details
    assert d["cause"] == "effects" and d["blockers"] == ["ordered_effects"]
    assert d["execution_seconds_per_call"] > 0 and d["paid_seconds_per_call"] < d["seconds_per_call"]


def test_the_host_time_between_calls_is_never_negative_with_several_threads():
    """Review of s35-watch8b: the host's time since the function's previous slow call (``gaps``) was this call's start
    minus the previous call's end; with two threads calling at once the other thread's call ends after this one began
    and the gap went negative, taking the execution's overlap below nothing. It is at least 0."""
    import threading

    import jax
    import jax.numpy as jnp

    import jitscope

    @jax.jit
    def step(x):
        for _ in range(6):
            x = jnp.tanh(x @ x)
        jax.debug.callback(lambda: None)
        return x

    def run(x):
        for _ in range(15):
            x = step(x)

    x = jnp.ones((256, 256)) * 1e-3
    step(x).block_until_ready()
    with jitscope.watch(slow_compile=600) as w:
        threads = [threading.Thread(target=run, args=(x,)) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    gaps = [g for rec in w._session._dispatch.functions.values() for g in rec.gaps]
    assert len(gaps) >= 30, gaps
    assert min(gaps) >= 0.0, sorted(gaps)[:5]
