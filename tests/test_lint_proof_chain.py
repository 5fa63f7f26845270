"""Severity by proof: a finding is as strong as the weakest link from a jit to the flagged value (issue #25).

A jit seen in the code (a decorator, ``jax.jit(f)``) that makes a parameter abstract on every way is an
``error``. An equinox/Flax module's ``__call__`` is traced only by convention (it runs under whatever jit
its caller applies; no call of it is seen), and ``eqx.filter_jit`` keeps a parameter that is a Python
int or bool static: a finding that rests on such a parameter not annotated as an array is a guess, ``info``,
saying so. Findings on the module's array fields (``self.w``) or on jnp results keep their severity.
Both claims are run under real JAX.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''import equinox as eqx
import jax
import jax.numpy as jnp


@jax.jit
def absolute(x):
    if x > 0:
        return x
    return -x


class Shift(eqx.Module):
    w: jax.Array

    def __call__(self, n):
        if n > 0:
            return self.w + n
        return self.w


class Checked(eqx.Module):
    w: jax.Array

    def __call__(self, x: jax.Array):
        if x > 0:
            return self.w * x
        return self.w
'''


def _ns() -> dict:
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    return ns


def test_resolved_jit_is_an_error_and_a_convention_on_an_unannotated_parameter_is_info():
    found = {f.location.line: f for f in lint_source(SRC, "m.py") if f.code == "JS101"}
    assert {line: f.severity for line, f in found.items()} == {8: "error", 17: "info", 26: "warning"}
    assert "traced only by convention" in found[17].message and "`Shift` is an equinox/Flax module" in found[17].message


def test_the_claims_under_real_jax():
    ns = _ns()
    with pytest.raises(jax.errors.TracerBoolConversionError):  # every way `absolute` is reached fails
        ns["absolute"](jnp.float32(1.0))
    shift = ns["Shift"](jnp.zeros(2))
    # the guessed parameter: a Python int works eagerly and under filter_jit (kept static)...
    assert shift(3).tolist() == [3.0, 3.0]
    assert eqx.filter_jit(lambda m, n: m(n))(shift, 3).tolist() == [3.0, 3.0]
    # ...and fails only on a way that passes an array, which the code does not show
    with pytest.raises(jax.errors.TracerBoolConversionError):
        eqx.filter_jit(lambda m, n: m(n))(shift, jnp.int32(3))
    # annotated as an array: under any jit that reaches it, it is a tracer (a may fact: warning)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        eqx.filter_jit(lambda m, x: m(x))(ns["Checked"](jnp.ones(2)), jnp.float32(2.0))


BY_NAME = '''import jax


class Walker:
    def step(self, x):
        if x > 0:
            return x
        return -x


class Runner:
    def step(self, x):
        if x > 0:
            return x
        return -x


def go(obj, x):
    return jax.jit(obj.step)(x)
'''


def test_a_method_matched_only_by_name_is_info_when_several_defs_carry_the_name():
    """`jax.jit(obj.step)`: some object's `step` is traced; with two `step`s in the module, which one is not
    known. Only one def of the name: it is the one the module can mean (a may fact: warning)."""
    found = {f.location.line: f.severity for f in lint_source(BY_NAME, "m.py") if f.code == "JS101"}
    assert found == {6: "info", 13: "info"}
    single = BY_NAME.replace("class Runner:\n    def step(", "class Runner:\n    def run(")
    found = {f.location.line: f.severity for f in lint_source(single, "m.py") if f.code == "JS101"}
    assert found == {6: "warning"}  # `Runner.run` is no `step`: not traced
    ns: dict = {}
    exec(compile(BY_NAME, "m.py", "exec"), ns)
    with pytest.raises(jax.errors.TracerBoolConversionError):  # the object handed to jit: its step fails
        ns["go"](ns["Walker"](), jnp.float32(1.0))
    assert float(ns["Runner"]().step(jnp.float32(-2.0))) == 2.0  # the other `step`, never handed to jit: runs
