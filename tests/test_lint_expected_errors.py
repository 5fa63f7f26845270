"""Code a test runs for the exception it raises (inside ``with pytest.raises(E):`` or ``with
self.assertRaises(E):``) is not a pitfall the program fell into: a discarded ``x.at[i].set(v)`` there is the
statement under test, its result never meant to be kept (JS603 stays quiet). The same statement outside such a
block, or inside any other ``with``, still loses the update (run below under real JAX)."""

from __future__ import annotations

import unittest

import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
import contextlib
import unittest

import jax.numpy as jnp
import pytest


def test_rejects_strings():
    x = jnp.zeros(3)
    with pytest.raises(TypeError):
        x.at[0].set("a")
    return x


class T(unittest.TestCase):
    def test_rejects_float_index(self):
        x = jnp.zeros(3)
        with self.assertRaisesRegex(TypeError, "Indexer"):
            x.at[1.5].set(1.0)
        return x


def lost_update():
    x = jnp.zeros(3)
    x.at[0].set(1.0)  # JS603
    return x


def lost_in_other_with():
    x = jnp.zeros(3)
    with contextlib.suppress(KeyError):
        x.at[0].set(1.0)  # JS603
    return x


def raises_then_lost():
    x = jnp.zeros(3)
    with pytest.raises(TypeError):
        def later():
            x.at[0].set(1.0)  # JS603: a function defined there runs later, not under the check
        later.__name__
        x.at[0].set("a")
    later()
    return x
'''


def test_expected_error_blocks_are_not_reported():
    want = sorted(i for i, line in enumerate(SRC.splitlines(), 1) if "# JS603" in line)
    got = sorted(f.location.line for f in lint_source(SRC, "test_m.py", select=["JS603"]))
    assert got == want, got


def test_the_statements_raise_and_the_look_alikes_lose_the_update_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "test_m.py", "exec"), ns)
    assert float(ns["test_rejects_strings"]()[0]) == 0.0  # the block's statement raised: pytest.raises passed
    case = ns["T"]("test_rejects_float_index")
    assert float(case.test_rejects_float_index()[0]) == 0.0
    assert float(ns["lost_update"]()[0]) == 0.0  # the update never happened
    assert float(ns["lost_in_other_with"]()[0]) == 0.0
    with pytest.raises(TypeError):
        jnp.zeros(3).at[0].set("a")  # the premise: it raises, so nothing is discarded
    assert isinstance(case, unittest.TestCase)
