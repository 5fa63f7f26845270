"""JS210 and `lax.cond` branches that give a field anything but a Python number: cond joins its branches' output
types, so a weak `0` in one branch is promoted when the other passes the operand through (`lambda s: s`) or
returns a field computed from it (`s._replace(time=s.time + 1)`), not only when it builds a typed array. A jitted
step fed that cond's output and then its own output compiles once (run below). Two branches that both give a
Python number stay weak and are still reported (and churn: two compiles)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from conftest import count_compiles

from jitscope.lint import lint_source

SRC = '''
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax


class State(NamedTuple):
    pos: jax.Array
    time: jax.Array


def advance(s):
    return State(pos=s.pos + 1.0, time=jnp.int32(s.time + 1))


def maybe_reset(s, done):
    return lax.cond(done, lambda t: State(pos=t.pos * 0, time=0), lambda t: t, s)


def restart(t):
    return State(pos=t.pos * 0, time=0)


def maybe_restart(s, done):
    return lax.cond(done, restart, lambda t: t._replace(time=t.time + 1), s)


def both_weak(s, done):
    return lax.cond(done, lambda t: State(pos=t.pos, time=0),  # JS210
                    lambda t: State(pos=t.pos, time=1), s)  # JS210
'''


def test_weak_branch_joined_with_a_non_literal_branch_is_not_reported():
    found = sorted(f.location.line for f in lint_source(SRC, "m.py", select=["JS210"]))
    want = sorted(i for i, line in enumerate(SRC.splitlines(), 1) if "# JS210" in line)
    assert found == want, found


def test_cond_join_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    state = ns["State"](pos=jnp.zeros(2), time=jnp.int32(0))
    for f in (ns["maybe_reset"], ns["maybe_restart"]):
        out = jax.eval_shape(f, state, True)
        assert not out.time.weak_type and out.time.dtype == jnp.int32
    step = jax.jit(ns["advance"])
    start = jax.jit(ns["maybe_reset"])(state, True)

    def run():
        s = step(start)
        step(s)

    assert count_compiles(run) == 1
    weak = jax.jit(ns["both_weak"])(state, True)
    assert weak.time.weak_type
    step2 = jax.jit(lambda s: ns["advance"](s))

    def run_weak():
        s = step2(weak)
        step2(s)

    assert count_compiles(run_weak) == 2
