"""JS612: a str/set/class (or, outside equinox, function) field left a child of a dataclass-like pytree.

Equinox Modules, flax struct dataclasses and ``jax.tree_util.register_dataclass`` classes make every field not
declared static a leaf. ``jax.jit`` (and ``jax.vmap``) turn every leaf into an abstract array, and a string, a
set or a class is no valid JAX type. The fixture (tests/lint_fixtures/JS612.py, its ``# JS612`` lines checked by
tests/test_lint_rules.py) is imported here: every flagged class raises TypeError under real ``jax.jit``, every
look-alike (static fields, numbers, equinox's function fields under filter_jit) runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS612.py"


@pytest.fixture()
def mod(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS612", None)
    yield __import__("JS612")
    sys.modules.pop("JS612", None)


def _instances(m):
    x = jnp.ones(2)
    return {"Modifier": m.Modifier(x), "Operator": m.Operator(x), "Tagged": m.Tagged(x, label="t"),
            "State": m.State(x), "Params": m.Params(x), "Registered": m.Registered(x, "m", "l"),
            "StaticModifier": m.StaticModifier(x), "StaticState": m.StaticState(x), "StaticParams": m.StaticParams(x)}


def _first_leaf(tree):
    return jax.tree_util.tree_leaves(tree)[0]


@pytest.mark.parametrize("name", ["Modifier", "Operator", "Tagged", "State", "Params", "Registered"])
def test_flagged_classes_raise_under_jax_jit_and_vmap(mod, name):
    obj = _instances(mod)[name]
    with pytest.raises(TypeError):
        jax.jit(_first_leaf)(obj)
    with pytest.raises((TypeError, ValueError)):
        jax.vmap(_first_leaf)(obj)


def test_a_shape_left_a_leaf_fails_as_a_shape_under_jit_and_works_eagerly(mod):
    g = mod.Grid(jnp.ones(2), (2, 3), 1)
    assert jnp.zeros(g.shape).shape == (2, 3)
    with pytest.raises(TypeError, match="[Ss]hape"):
        jax.jit(lambda g: jnp.zeros(g.shape))(g)
    fg = mod.FlaxGrid(jnp.ones(2))  # the static shape and a number leaf (a step counter) are fine
    assert jax.jit(lambda g: jnp.zeros(g.shape) + g.step)(fg).shape == (2, 1)


def test_equinox_filter_jit_keeps_the_str_leaf_static(mod):
    assert float(eqx.filter_jit(lambda m: m.scale.sum())(mod.Modifier(jnp.ones(2)))) == 2.0


@pytest.mark.parametrize("name", ["StaticState", "StaticParams"])
def test_look_alikes_run_under_jax_jit(mod, name):
    assert float(jax.jit(lambda s: s.x.sum())(_instances(mod)[name])) == 2.0


def test_equinox_static_fields_and_numbers_run_under_jax_jit(mod):
    m = eqx.tree_at(lambda m: m.activation, mod.StaticModifier(jnp.ones(2)), replace=None)  # a function leaf aside
    assert float(jax.jit(lambda m: m.scale.sum() * m.n)(m)) == 6.0


def test_js612_lines_and_fix_per_family():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS612"]).findings
    got = [(f.location.line, f.details["family"]) for f in found]
    assert got == [(12, "equinox"), (13, "equinox"), (18, "equinox"), (22, "equinox"), (28, "flax"), (29, "flax"),
                   (36, "register_dataclass"), (46, "register_dataclass"), (88, "register_dataclass")], got
    assert "eqx.field(static=True)" in found[0].message and "pytree_node=False" in found[4].message
    # info: the failing route (a plain jax transform given the instance) is not one the model sees
    assert {f.severity for f in found} == {"info"}
