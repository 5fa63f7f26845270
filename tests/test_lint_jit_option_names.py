"""JS616: a jit option naming a parameter the jitted function lacks (jaxmodel: ``Transform.options_checked_at_build``).

Each case of the fixture (lint_fixtures/JS616.py, its ``# JS616`` lines checked by tests/test_lint_rules.py) is
built under real JAX: the flagged options raise ValueError when the jit is built, the look-alikes (a real name, a
negative position, a function taking ``**kwargs`` or ``*args``) build and run, and lint is quiet on them.
"""

from __future__ import annotations

from pathlib import Path

import jax
import pytest

import jitscope
from jitscope.jaxmodel import known

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS616.py"


@pytest.fixture()
def fixture(lint_fixture):
    return lint_fixture("JS616")


def test_lint_flags_each_option_entry_the_function_lacks():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS616"]).findings
    got = [(f.details["option"], f.details["function"], f.details["got"]) for f in found]
    assert got == [("static_argnames", "polynomial", "the name 'scale' and the name 'order'"),
                   ("static_argnums", "_step", "the position 3"), ("donate_argnames", "_step", "the name 'params'")]


@pytest.mark.parametrize("case", range(11))
def test_the_flagged_options_raise_when_built_and_the_look_alikes_run(fixture, case):
    name, build, fails = fixture.CASES[case]
    if fails:
        with pytest.raises(ValueError, match="static_arg|donate_arg"):
            build()
        return
    jitted = build()
    if name == "decorated ok":
        jitted(1.0, 2.0, p=3.0)
    elif name in ("kwargs ok",):
        jitted(1.0, mode="a")
    elif name == "args ok":
        jitted(1.0, 2.0, 3.0, 4.0, 5.0)
    elif name == "wrapped ok":
        assert callable(jitted)  # built: jit checked the options against the wrapper (*args, **kwargs) and took them
    elif name in ("rebound ok", "class body ok"):
        assert float(jitted(1.0, 2.0)) == 2.0
    else:
        jitted(1.0, 2.0, 3)


def test_the_model_row_is_jax_jit():
    assert "jax.jit" in known.names(lambda t: t.options_checked_at_build)
    with pytest.raises(ValueError):
        jax.jit(lambda x: x, static_argnames=("y",))
