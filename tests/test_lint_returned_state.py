"""JS403 and state a traced function hands back. jit and the control-flow primitives (lax.scan's carry) flatten
the caller's pytree and rebuild it from tracers in each trace: a dict argument mutated and then returned is the
trace's own copy, and the update reaches the caller through the return value, not a leak (quiet). A helper that
mutates and returns an argument its callers may own is `info`; a module global filled with a tracer stays a
warning. Each case runs under real JAX."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitscope.lint import lint_source

SRC = '''
import jax
import jax.numpy as jnp

SEEN = {}


@jax.jit
def count(state, x):
    state["n"] = state["n"] + 1
    state.update(total=state["total"] + x.sum())
    return state


def body(carry, x):
    carry.update(last=x)
    return carry, x


def run(xs):
    return jax.lax.scan(body, {"last": jnp.zeros(())}, xs)


def record(stats, x):
    stats.update(mean=jnp.mean(x))  # JS403 info
    return stats


@jax.jit
def summarize(x):
    return record(SEEN, x)  # a global: the tracer does outlive this trace (said as info: callers not proven)


@jax.jit
def leak(x):
    SEEN.update(last=x)  # JS403 warning
    return x
'''


def _marked():
    return {i: line.split("# JS403 ")[1] for i, line in enumerate(SRC.splitlines(), 1) if "# JS403 " in line}


def test_returned_state_is_not_a_leak():
    got = {f.location.line: f.severity for f in lint_source(SRC, "m.py", select=["JS403"])}
    assert got == _marked(), got


def test_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    state = {"n": jnp.zeros((), jnp.int32), "total": jnp.zeros(())}
    out = ns["count"](state, jnp.ones(3))
    assert int(out["n"]) == 1 and float(out["total"]) == 3.0
    assert int(state["n"]) == 0  # the caller's dict untouched: jit mutated its own copy, returned it
    out = ns["count"](out, jnp.ones(3))  # second call: no leaked tracer anywhere
    assert int(out["n"]) == 2
    carry, _ = ns["run"](jnp.arange(3.0))
    assert float(carry["last"]) == 2.0
    ns["summarize"](jnp.ones(2))
    assert isinstance(ns["SEEN"]["mean"], jax.core.Tracer)
    ns["leak"](jnp.ones(2))
    assert isinstance(ns["SEEN"]["last"], jax.core.Tracer)  # the look-alike: a tracer kept by a global
