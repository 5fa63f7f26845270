"""JS614: a pytree's unflatten that does not rebuild what its flatten took apart (lint/pytree_roundtrip.py).

Every transformation takes a pytree argument apart and builds it again with the unflatten, so the fixture's
classes (lint_fixtures/JS614.py, its ``# JS614`` lines checked by tests/test_lint_rules.py) are run here
through real ``jax.jit``: the flagged ones come back with values in other attributes, raise ValueError, or lose
a child; the look-alikes (an explicit order, aux passed whole, a dataclass, an ``object.__new__`` rebuild, a flatten
through properties over private attributes) come
back equal, and lint is quiet on them.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS614.py"
ATTRS = {"Box": ("lo", "n", "hi"), "Pair": ("mean", "scale", "count"), "Span": ("start", "stop", "step"),
         "Scaled": ("value", "weight"), "BoxOk": ("lo", "n", "hi"), "PairOk": ("mean", "scale", "count"),
         "Fields": ("a", "b"), "Derived": ("x", "total"), "Flags": ("lo", "hi"),
         "Sub": ("a", "b", "c"), "NoInit": ("x", "cache", "z"), "KwOnly": ("x", "y", "z")}
FLAGGED = {"Box", "Pair", "Span", "Scaled"}


@pytest.fixture()
def fixture(lint_fixture):
    return lint_fixture("JS614")


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return np.shape(a) == np.shape(b) and bool(np.all(np.asarray(a) == np.asarray(b)))


def test_lint_flags_exactly_the_classes_that_do_not_round_trip():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS614"]).findings
    got = sorted((f.details["cls"], f.details["what"], f.severity) for f in found)
    assert got == [("Box", "moved", "error"), ("Pair", "count", "error"), ("Scaled", "dropped", "warning"),
                   ("Span", "moved", "error")], got
    box = next(f for f in found if f.details["cls"] == "Box")
    assert "`self.hi` becomes `self.n`" in box.message and "`self.n` becomes `self.hi`" in box.message


def test_each_flagged_class_reads_differently_under_jit_and_each_look_alike_the_same(fixture):
    x = jnp.arange(3.0)
    for obj in fixture.make(x):
        name = type(obj).__name__
        same = True
        for attr in ATTRS[name]:  # each attribute read inside jit, where the argument was rebuilt by the unflatten
            try:
                inside = jax.jit(lambda o, attr=attr: getattr(o, attr))(obj)
            except ValueError:
                assert name == "Pair"  # two names for three children: the unpacking raises at the first call
                same = False
                break
            same = same and _same(getattr(obj, attr), inside)
        assert same is (name not in FLAGGED), name
