"""JS403 on a jitted function's dict argument: jit rebuilds the caller's pytree from tracers in each trace, so the
container is the trace's own (lint/facts.py ``rebuilt_argument``).

Real JAX on CPU: a helper that updates the dict its jitted caller received leaks nothing (no tracer is left
anywhere after the call) and the caller reads the update (quiet); the jitted function's own update never reaches
its caller's dict (a lost update: a warning that says so, not "leaks tracers"); a module-global dict updated
while tracing really keeps a tracer (still reported as a leak).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from test_lint_display_only import run_module

from jitscope.lint import lint_source

SRC = '''import jax
import jax.numpy as jnp

STORE = {}


def update_feats(seq, inputs):
    feat = jnp.tanh(seq)
    inputs.update({"feat": feat})


def stash(seq):
    STORE.update({"feat": jnp.tanh(seq)})


@jax.jit
def model(seq, inputs):
    update_feats(seq, inputs)
    return inputs["feat"] * 2


@jax.jit
def model2(seq, inputs):
    inputs.update({"seq": seq})
    return inputs["seq"] * 2


@jax.jit
def leaky(seq):
    stash(seq)
    return seq + 1
'''


def _module() -> dict:
    return run_module(SRC)


def test_the_argument_dict_is_the_traces_own():
    ns = _module()
    mine = {"seq": jnp.zeros(2)}
    out = ns["model"](jnp.ones(2), mine)
    assert float(out[0]) == float(2 * jnp.tanh(1.0))  # the helper's update is read in the trace
    assert sorted(mine) == ["seq"]  # the caller's dict is untouched: nothing of the trace reached it
    ns["model2"](jnp.ones(2), mine)
    assert sorted(mine) == ["seq"] and float(mine["seq"][0]) == 0.0  # model2's update is lost for the caller


def test_a_global_dict_really_keeps_a_tracer():
    ns = _module()
    ns["leaky"](jnp.ones(2))
    assert isinstance(ns["STORE"]["feat"], jax.core.Tracer)


def test_js403_quiet_on_the_helper_lost_update_on_the_argument_leak_on_the_global():
    found = {f.location.line: f for f in lint_source(SRC, "m.py") if f.code == "JS403"}
    assert 9 not in found
    assert found[24].severity == "warning" and "never sees the change" in found[24].message
    assert "leaks tracers" in found[13].message
