"""JS609: jax.numpy in ``__eq__``/``__hash__`` of a hashable class (a static argument, pytree metadata).

JAX looks static arguments (and pytree metadata) up by ``hash`` and ``==``. Under a trace every ``jnp`` call is
staged, even on Python numbers, so an ``__eq__`` or ``__hash__`` computing with ``jnp`` raises when the lookup
happens while tracing (a jitted function called from another) and works outside any trace. The fixture
(lint_fixtures/JS609.py, its ``# JS609`` lines checked by tests/test_lint_rules.py) is run here under real
``jax.jit`` and ``lax.scan``: both flagged classes raise only when nested; the look-alikes (NumPy, a shape or
dtype query, an array-like class whose ``==`` is elementwise and that is not hashable) stay quiet.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import pytest

import jitscope

FIXTURE = Path(__file__).parent / "lint_fixtures" / "JS609.py"


@pytest.fixture()
def fixture(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE.parent))
    sys.modules.pop("JS609", None)
    jax.clear_caches()
    yield __import__("JS609")
    jax.clear_caches()
    sys.modules.pop("JS609", None)


def test_js609_flags_the_jnp_call_and_names_the_method():
    found = jitscope.lint([str(FIXTURE)], config=False, jobs=1, select=["JS609"]).findings
    got = [(f.location.line, f.details["method"], f.details["cls"], f.details["call"]) for f in found]
    assert got == [(18, "__eq__", "Plane", "jnp.allclose"), (23, "__hash__", "HashedPlane", "jnp.asarray")], got
    assert all(f.severity == "warning" for f in found)


@pytest.mark.parametrize("name, fails", [("Plane", True), ("HashedPlane", True), ("HostPlane", False)])
def test_a_jnp_equality_or_hash_raises_only_when_jit_looks_it_up_under_a_trace(fixture, name, fails):
    cls = getattr(fixture, name)
    if not fails:
        assert float(fixture.run(cls)) == 4.0
        return
    fixture.height(1.0, cls(2.0, (0.0, 1.0)))
    fixture.height(1.0, cls(2.0, (0.0, 1.0)))  # the same lookup outside a trace works
    with pytest.raises(ValueError, match="__eq__|hash"):
        fixture.run(cls)


@pytest.mark.parametrize("name, fails", [("Plane", True), ("HostPlane", False)])
def test_scan_compares_a_carry_metadata_with_the_class_eq_under_the_trace(fixture, name, fails):
    cls = getattr(fixture, name)

    @jax.tree_util.register_pytree_node_class
    class Carry:
        def __init__(self, a, plane):
            self.a, self.plane = a, plane

        def tree_flatten(self):
            return (self.a,), self.plane

        @classmethod
        def tree_unflatten(cls_, plane, children):
            return cls_(children[0], plane)

    @jax.jit
    def f(x):
        body = lambda c, _: (Carry(c.a + 1, cls(2.0, (0.0, 1.0))), None)  # noqa: E731
        return jax.lax.scan(body, Carry(x, cls(2.0, (0.0, 1.0))), None, length=3)[0].a

    if fails:
        with pytest.raises(ValueError, match="metadata"):
            f(1.0)
    else:
        assert float(f(1.0)) == 4.0


def test_an_elementwise_eq_without_hash_is_an_array_api_not_a_static_key(fixture):
    a, b = fixture.Field(jax.numpy.ones(3)), fixture.Field(jax.numpy.ones(3))
    assert bool((a == b).all())  # `==` returns an array on purpose; the class is unhashable, never static
    with pytest.raises(TypeError):
        hash(a)
