"""JS607: a NumPy or JAX array in a pytree's metadata (aux data of ``tree_flatten``, a static field).

jit's cache compares the structure of a call's arguments with the cached one, metadata with ``==``: an array's
``==`` is an array, and a second instance holding an equal but distinct array raises ValueError (JAX 0.10:
"Exception raised while checking equality of metadata fields of pytree"). The fixture (lint_fixtures/JS607.py,
its ``# JS607`` lines checked by tests/test_lint_rules.py) is run here under real jax.jit: a
``register_pytree_node_class`` class given the array at construction or making it in ``__init__``, a flax struct
field with ``pytree_node=False`` and an equinox ``static=True`` field raise; the look-alikes (a tuple of the
values, an int, an array as a child) run, and lint is quiet on them.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS607.py"


def test_js607_says_where_the_metadata_is_declared():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS607"]).findings
    got = [(f.location.line, f.details["attr"]) for f in found]
    assert got == [(28, "bins"), (43, "table"), (48, "grid"), (53, "edges"), (72, "grid")], got  # look-alikes quiet
    assert "the aux data `tree_flatten` returns, line 17" in found[3].message
    assert "declared static at line 43" in found[1].message
    assert "an array (its declared type)" in found[1].message  # said once, at the declaration, not at `State(...)`


@pytest.mark.parametrize("case, fails", [(0, True), (1, True), (2, True), (3, True), (4, False), (5, False),
                                          (6, False)])
def test_a_second_instance_with_an_array_in_its_metadata_raises(monkeypatch, case, fails):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS607", None)
    fixture = __import__("JS607")

    jax.clear_caches()  # a cached structure holding an array breaks later lookups of the same class too
    total = jax.jit(lambda t: jax.tree_util.tree_reduce(lambda a, b: a + b.sum(), t, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # equinox warns about an array in a static field, and goes on
        first = fixture.make(jnp.ones(4))[case]
        second = fixture.make(jnp.ones(4))[case]
    total(first)
    total(first)  # the very same object again: compared by identity first, it works
    if fails:
        with pytest.raises(ValueError):
            total(second)
    else:
        total(second)
    jax.clear_caches()
    sys.modules.pop("JS607", None)


def test_a_static_field_declared_as_an_array_raises_at_a_second_instance(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS607", None)
    fixture = __import__("JS607")
    jax.clear_caches()
    total = jax.jit(lambda t: t.values.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # equinox warns about an array in a static field, and goes on
        first, second = (fixture.Tabulated(jnp.ones(3), jnp.arange(3.0)) for _ in range(2))
    total(first)
    with pytest.raises(ValueError):
        total(second)
    solver = fixture.Solver(step=jnp.sin)  # the look-alikes: a function, None, an int static; an array child
    jax.jit(lambda s: s.n)(solver)
    jax.jit(lambda s: s.n)(fixture.Solver(step=jnp.sin))
    jax.clear_caches()
    sys.modules.pop("JS607", None)
