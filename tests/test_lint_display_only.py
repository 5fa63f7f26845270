"""Code only the host reaches: display properties and branches behind a debug flag that is off (lint/hostonly.py).

Real JAX on CPU: a property that only ``__repr__`` and eager module code read works on a concrete instance and
never meets a tracer; one a jitted function reads really fails and stays reported. A NumPy call behind
``if DEBUG:`` with ``DEBUG = False`` never runs under jit; turned on, it fails under jit and works eagerly (an
eager debugging aid): info. Behind a flag that is on, it fails on every jitted call: still a warning.
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
import numpy as np

DEBUG = False
VERBOSE = True


class Gauss(eqx.Module):
    mu: jax.Array
    sigma: jax.Array

    def __call__(self, x):
        if DEBUG:
            print("sigma", np.asarray(self.sigma))
        return jnp.exp(-((x - self.mu) / self.sigma) ** 2)

    @property
    def label(self):
        return f"N({float(self.mu):.2f}, {float(self.sigma):.2f})"

    def __repr__(self):
        return f"Gauss[{self.label}]"

    @property
    def width(self):
        return float(self.sigma) * 2


@eqx.filter_jit
def evaluate(g, x):
    return g(x) * g.width


@jax.jit
def loud(x):
    if VERBOSE:
        print("x", np.asarray(x))
    return x * 2


G = Gauss(jnp.float32(0.0), jnp.float32(1.0))
print(G.label)
'''


def _found(src: str) -> dict[tuple[int, str], str]:
    return {(f.location.line, f.code): f.severity for f in lint_source(src, "m.py") if f.code in ("JS103", "JS104")}


def run_module(src: str) -> dict:
    """Run ``src`` as module ``m.py`` under real JAX and return its namespace."""
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    return ns


def _module() -> dict:
    return run_module(SRC)


def test_display_property_runs_on_the_host_and_a_traced_read_fails():
    ns = _module()
    g = ns["G"]
    assert repr(g) == "Gauss[N(0.00, 1.00)]" and g.label == "N(0.00, 1.00)"
    assert jax.jit(lambda g, x: g(x))(g, jnp.ones(2)).shape == (2,)  # `__call__` under jit: DEBUG is off
    with pytest.raises(jax.errors.ConcretizationTypeError):
        ns["evaluate"](g, jnp.ones(2))  # `width` read while tracing: float() of a tracer


def test_the_debug_branch_is_an_eager_aid_and_fails_only_when_turned_on_under_jit(capsys):
    ns = _module()
    g, x = ns["G"], jnp.ones(2)
    ns["DEBUG"] = True
    g(x)  # eager: the branch prints the concrete value
    assert "sigma" in capsys.readouterr().out
    with pytest.raises(jax.errors.TracerArrayConversionError):
        eqx.filter_jit(lambda g, x: g(x))(g, x)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        ns["loud"](x)  # VERBOSE is on: every jitted call fails


def test_lint_quiet_on_display_info_on_the_off_flag_and_warns_on_the_rest():
    found = _found(SRC)
    assert (21, "JS103") not in found  # `label`: only `__repr__` and module-level code read it
    assert found[(16, "JS104")] == "info"  # behind `if DEBUG:` with DEBUG = False
    assert found[(28, "JS103")] == "warning"  # `width`: `evaluate` reads it under filter_jit
    assert found[(39, "JS104")] in ("warning", "error")  # behind VERBOSE = True


def test_a_display_property_also_read_by_traced_code_stays_reported():
    src = SRC.replace("return g(x) * g.width", "return g(x) * g.width + len(g.label)")
    assert _found(src)[(21, "JS103")] == "warning"


def test_the_off_flag_message_says_what_the_branch_needs():
    msg = next(f.message for f in lint_source(SRC, "m.py") if f.code == "JS104" and f.location.line == 16)
    assert "runs only when `DEBUG` is set" in msg
