"""JS210 and `lax.cond`: a state field given a Python number in one branch of a `lax.cond` and a typed array in the
other is no weak leaf anywhere: cond joins its branches' output types, and the weak `int32[]` of one branch is
promoted to the other's strong `int32[]`. A jitted step fed that state and then its own output compiles once (run
below). The same holds when the other branch passes the operand through (`lambda t: t`) or returns a field computed
from it (`t._replace(time=t.time + 1)`): anything but a Python number. A weak number in a function whose result
leaves unjoined (a `reset` returned to the caller) still churns."""

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


def restart(s):
    return State(pos=jnp.zeros(2), time=0)  # joined with `advance`'s int32 by the cond below


def advance(s):
    return State(pos=s.pos + 1.0, time=jnp.int32(s.time + 1))


def step(s, done):
    return lax.cond(done, restart, advance, s)


def step_lambda(s, done):
    return lax.cond(done, lambda t: State(pos=t.pos * 0, time=0),
                    lambda t: State(pos=t.pos, time=jnp.int32(t.time + 1)), s)


class Other(NamedTuple):
    pos: jax.Array
    time: jax.Array


def reset():
    return Other(pos=jnp.zeros(2), time=0)  # returned as is (a weak leaf)  # JS210


def reset_both(s, done):
    return lax.cond(done, lambda t: Other(pos=t.pos, time=0), lambda t: Other(pos=t.pos, time=1), s)


def advance_other(s):
    return Other(pos=s.pos + 1.0, time=jnp.int32(s.time + 1))


def maybe_reset(s, done):  # the other branch passes the typed operand through
    return lax.cond(done, lambda t: State(pos=t.pos * 0, time=0), lambda t: t, s)


def maybe_restart(s, done):
    return lax.cond(done, restart, lambda t: t._replace(time=t.time + 1), s)
'''


def test_weak_number_in_one_cond_branch_is_not_reported():
    got = [i for i, line in enumerate(SRC.splitlines(), 1) if line.rstrip().endswith("# JS210")]
    found = sorted(f.location.line for f in lint_source(SRC, "m.py", select=["JS210"]))
    # `reset_both`'s cond joins two weak branches (`time=0`, `time=1`): its output stays weak, still reported
    both = next(i for i, line in enumerate(SRC.splitlines(), 1) if "Other(pos=t.pos, time=0)" in line)
    assert found == sorted([*got, both, both]), found


def test_cond_joins_branch_types_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    state = ns["State"](pos=jnp.zeros(2), time=jnp.int32(0))
    for step in (ns["step"], ns["step_lambda"], ns["maybe_reset"], ns["maybe_restart"]):
        out = jax.eval_shape(step, state, True)
        assert not out.time.weak_type and out.time.dtype == jnp.int32

    # a jitted consumer fed the cond's reset output and then its own output: one compile
    @jax.jit
    def consume(s):
        return ns["advance"](s)

    reset_state = jax.jit(ns["step"])(state, True)

    def run():
        s = consume(reset_state)
        s = consume(s)
        consume(s)

    assert count_compiles(run) == 1
    # the weak state returned as is does churn: two compiles
    other = jax.jit(ns["advance_other"])

    def run_other():
        s = other(ns["reset"]())
        other(s)

    assert count_compiles(run_other) == 2
    assert jax.eval_shape(ns["reset_both"], ns["reset"](), True).time.weak_type
