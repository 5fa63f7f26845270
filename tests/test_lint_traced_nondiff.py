"""JS615: a traced value at a ``nondiff_argnums`` position of a custom_vjp function (jaxmodel: custom_vjp's
``nondiff_rejects_tracers``; custom_jvp accepts one).

The fixture (lint_fixtures/JS615.py, its ``# JS615`` lines checked by tests/test_lint_rules.py) is run here under
real JAX: the flagged jitted functions raise UnexpectedTracerError, the look-alikes (a static or constant value
there, a custom_jvp's nondiff argument) run, and lint is quiet on them.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.jaxmodel import known

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS615.py"


def test_lint_flags_the_traced_nondiff_arguments_only():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS615"]).findings
    got = [(f.details["function"], f.details["param"], f.severity) for f in found]
    assert got == [("clip_grad", "bound", "error"), ("scaled", "scale", "error")], got


@pytest.mark.parametrize("case", range(5))
def test_the_flagged_calls_raise_under_jit_and_the_look_alikes_run(lint_fixture, case):
    name, fn, args, fails = lint_fixture("JS615").calls()[case]
    if fails:
        with pytest.raises(jax.errors.UnexpectedTracerError, match="nondiff_argnums"):
            fn(*args)
    else:
        fn(*args)


@pytest.mark.parametrize("qualname", ["jax.custom_vjp", "jax.custom_jvp"])
def test_the_model_row_matches_jax_under_jit_and_under_grad(qualname):
    transform = getattr(jax, qualname.split(".")[1])

    @partial(transform, nondiff_argnums=(1,))
    def f(x, s):
        return x * s

    if qualname == "jax.custom_vjp":
        f.defvjp(lambda x, s: (x * s, None), lambda s, res, g: (g * s,))
    else:
        f.defjvp(lambda s, primals, tangents: (f(primals[0], s), tangents[0] * s))
    rejects = qualname in known.NONDIFF_REJECTS_TRACERS
    for run in (jax.jit(f), jax.grad(lambda x, s: f(x, s * 1.0), argnums=(0, 1))):
        if rejects:
            with pytest.raises(jax.errors.UnexpectedTracerError):
                run(jnp.float32(1.0), jnp.float32(2.0))
        else:
            run(jnp.float32(1.0), jnp.float32(2.0))
