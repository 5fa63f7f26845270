"""JS210: a pytree state field given a Python number in one place and a typed array in another recompiles.

PROGRAM is an environment with a flax-style dataclass state; under real JAX its jitted ``step`` is fed the
``reset`` state and then its own output: the flagged class compiles twice (jit's cache key holds the weak
type), the look-alikes (both sites typed; both sites weak, ``time=state.time + 1``) compile once.
"""

from __future__ import annotations

import sys
import textwrap
import types

import jax
import pytest

from jitscope.lint import lint_source

PROGRAM = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from flax import struct


    @struct.dataclass
    class Churn:
        pos: jax.Array
        time: int


    @struct.dataclass
    class Typed:
        pos: jax.Array
        time: int


    @struct.dataclass
    class Weak:
        pos: jax.Array
        time: int


    def reset_churn():
        return Churn(pos=jnp.zeros(2), time=0)  # JS210


    def step_churn(s, a):
        return Churn(pos=s.pos + a, time=jnp.int32(s.time + 1))


    def reset_typed():
        return Typed(pos=jnp.zeros(2), time=jnp.int32(0))


    def step_typed(s, a):
        return Typed(pos=s.pos + a, time=jnp.int32(s.time + 1))


    def reset_weak():
        return Weak(pos=jnp.zeros(2), time=0)


    def step_weak(s, a):
        return Weak(pos=s.pos + a, time=s.time + 1)
''')


def _compiles(step, state) -> int:
    """Backend compiles of a fresh jit of ``step`` fed ``state`` and then its own outputs (jit's C++ cache
    also keys a Python int apart from a weak array, without compiling again: compiles are what cost)."""
    from conftest import count_compiles

    def run() -> None:
        f, s = jax.jit(step), state
        for _ in range(3):
            s = jax.block_until_ready(f(s, 1.0))

    return count_compiles(run)


def test_flagged_state_compiles_twice_and_lookalikes_once_under_real_jit():
    pytest.importorskip("flax")
    mod = types.ModuleType("weak_state_program")
    sys.modules[mod.__name__] = mod  # dataclasses look their module up
    try:
        exec(compile(PROGRAM, "weak_state_program.py", "exec"), mod.__dict__)
    finally:
        del sys.modules[mod.__name__]
    assert _compiles(mod.step_churn, mod.reset_churn()) == 2
    assert _compiles(mod.step_typed, mod.reset_typed()) == 1
    assert _compiles(mod.step_weak, mod.reset_weak()) == 1


def test_findings_are_exactly_the_marked_lines():
    found = [f for f in lint_source(PROGRAM, "weak_state_program.py") if f.code == "JS210"]
    want = {i for i, line in enumerate(PROGRAM.splitlines(), 1) if line.rstrip().endswith("# JS210")}
    assert {f.location.line for f in found} == want
    assert "line 29" in found[0].message and "jnp.int32(0)" in found[0].message
