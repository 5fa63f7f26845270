"""JS617: a PRNG key consumed twice on every path (jaxmodel/values.py ``RANDOM_NON_CONSUMING`` says which
``jax.random`` functions read a key without consuming it).

JAX's own checker (``jax_debug_key_reuse``) is the oracle: each flagged case of the fixture (lint_fixtures/JS617.py,
its ``# JS617`` lines checked by tests/test_lint_rules.py) raises KeyReuseError under it, eagerly or under jit, and
each look-alike (split subkeys, a key carried and split in a loop, ``fold_in``, one use per branch, a key rebound in
a branch) runs; lint is quiet on those.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.jaxmodel.values import RANDOM_NON_CONSUMING

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS617.py"


@pytest.fixture()
def fixture(lint_fixture):
    return lint_fixture("JS617")


@pytest.fixture()
def key_reuse_checked():
    jax.config.update("jax_debug_key_reuse", True)
    yield
    jax.config.update("jax_debug_key_reuse", False)


def test_lint_flags_the_reused_keys_only():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS617"]).findings
    assert [(f.location.line, f.details["where"]) for f in found] == [
        (11, "straight"), (17, "straight"), (26, "straight"), (32, "loop"), (39, "straight")]
    assert all(f.severity == "warning" for f in found)
    # each finding names the function whose body holds it (the rule reads a body from its def, while the
    # enclosing scope is current: SARIF and JSON consumers group by this name)
    tree = ast.parse(FIXTURE.read_text())
    owner = {line: fn.name for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
             for line in range(fn.lineno, fn.end_lineno + 1)}
    assert [f.location.function for f in found] == [owner[f.location.line] for f in found]


@pytest.mark.parametrize("case", range(14))
def test_jax_key_reuse_checker_agrees(fixture, key_reuse_checked, case):
    fn, args, reused = fixture.CASES[case]
    if reused:
        with pytest.raises(jax.errors.KeyReuseError):
            fn(jax.random.key(0), *args)
    else:
        fn(jax.random.key(0), *args)


def test_the_non_consuming_table_matches_jax(key_reuse_checked):
    key = jax.random.key(1)
    for q in ("jax.random.fold_in", "jax.random.key_data", "jax.random.key_dtype"):
        assert q in RANDOM_NON_CONSUMING
    jax.random.fold_in(key, 1), jax.random.fold_in(key, 2), jax.random.key_data(key)
    jax.random.key_dtype("rbg")  # takes an implementation's name, never a key
    jax.random.normal(key, ())  # still unconsumed: the readers above did not consume it
    with pytest.raises(jax.errors.KeyReuseError):
        jax.random.normal(key, ())


def test_comprehension_keys_are_fresh_per_element(fixture, key_reuse_checked):
    """Each comprehension's `k` is its own variable and a new split key each element: JAX's checker agrees."""
    out = fixture.per_comprehension(jax.random.key(0), jax.random.key(1))
    assert len(out) == 4


def test_aligned_permutations_reorder_alike(fixture):
    x = jnp.arange(8)
    xs, ys = fixture.shuffle_aligned(jax.random.key(3), x, x * 10)
    assert bool(jnp.all(ys == xs * 10))  # the same reordering: pairs stay pairs, which is why one key is shared
