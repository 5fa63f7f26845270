"""JS103 and pytree methods that convert to another library: a method named after a module the file imports
(`def fractions(self)` with `import fractions`) or annotated to return that module's type (`-> fractions.Fraction`)
builds a host object from concrete values (`self.value.item()`); it is not among the methods that run on traced
fields when an instance passes through jit (the module's `__call__` does, and runs under jit below; the conversion
runs eagerly). A method of the same class that returns a JAX value and calls `.item()` on a field fails under jit
(ConcretizationTypeError, run below) and stays reported."""

from __future__ import annotations

import fractions

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
import fractions

import equinox as eqx
import jax
import jax.numpy as jnp


class Constant(eqx.Module):
    value: jax.Array

    def __call__(self, x):
        return x * self.value

    def fractions(self):
        return fractions.Fraction(self.value.item())

    def as_fraction(self) -> fractions.Fraction:
        return fractions.Fraction(self.value.item()).limit_denominator(100)

    def doubled(self) -> jax.Array:
        return jnp.asarray(self.value.item() * 2)  # JS103
'''


def test_host_library_conversions_are_not_reported():
    marked = {i for i, line in enumerate(SRC.splitlines(), 1) if line.endswith("# JS103")}
    assert {f.location.line for f in lint_source(SRC, "m.py", select=["JS103"])} == marked


def _constant(value: float):
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    return ns["Constant"](jnp.asarray(value))


def test_under_real_jax():
    c = _constant(0.5)
    assert float(eqx.filter_jit(lambda m, x: m(x))(c, 4.0)) == 2.0
    assert c.fractions() == fractions.Fraction(1, 2) and c.as_fraction() == fractions.Fraction(1, 2)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        eqx.filter_jit(lambda m: m.doubled())(c)
