"""JW403 "create the jitted function once" only where one function object would have hit jit's cache.

Found by a held-out scorer on `jitscope watch -m pytest` over fresh library suites (issue #24): 45 of 54 JW403
findings were untrue or not actionable. Tests that run several cases in one test (a loop over classes, another
test's body re-run under `jax.checking_leaks`) rebuild a closure per case; the programs' texts are equal, yet:
(a) the argument's pytree class changed: one module-level jit compiles once per class too, so the key
difference is the class, not the new function object; (b) the closure captured another class: one object
could not serve both cases; (c) a re-run under a checking mode is that check's run, not a duplicate;
(d) a static pytree field holding a function changed: a function cannot be a leaf, the fix is one function
object. The true case, a closure rebuilt per call with the same program and signature, stays reported.
The cases live in a helper module the test module imports (the program's code passes the arguments): where the
test's own module passes them, the variation is the test's subject (tests/test_watch_test_variation.py).
"""

from __future__ import annotations

import dataclasses
import json

from conftest import run_cli

from jitscope.jaxmodel import fixes

SUITE = '''
import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp


class A(NamedTuple):
    x: jax.Array


class B(NamedTuple):
    x: jax.Array


def scaled(tree):
    f = jax.jit(lambda t: t.x * 2.0)     # rebuilt per call, equal bindings
    return f(tree)


def test_classes():
    for cls in (A, B, A):                # B: another pytree class; A again: one object would have hit the cache
        scaled(cls(jnp.ones(3)))


def test_class_and_keyword():
    for cls, by_keyword in ((A, False), (B, True)):
        g = jax.jit(lambda t, y: t.x * y)    # the class changes, and y comes by keyword with it
        g(cls(jnp.ones(3)), y=jnp.ones(3)) if by_keyword else g(cls(jnp.ones(3)), jnp.ones(3))


class P:
    @staticmethod
    def apply(x):
        return x * 3.0


class Q:
    @staticmethod
    def apply(x):
        return x * 3.0


def applied(cls):
    f = jax.jit(lambda x: cls.apply(x))  # the closure captures another class per case
    return f(jnp.ones(3))


def test_captured_class():
    for cls in (P, Q):
        applied(cls)


def fives():
    f = jax.jit(lambda x: x * 5.0)
    return f(jnp.ones(3))


def test_checked_rerun():
    fives()
    with jax.checking_leaks():
        fives()                          # the same body re-run under the leak checker
    fives()                              # a true duplicate of the first call: the same function rebuilt


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class S:
    x: jax.Array
    fn: object = dataclasses.field(metadata=dict(static=True))


@jax.jit
def use(s):
    return s.x * 7.0


def test_static_function_field():
    use(S(jnp.ones(3), lambda v: v))
    use(S(jnp.ones(3), lambda v: v))     # a new lambda in the static field: the same program
'''


def test_create_once_only_where_one_object_would_have_hit_the_cache(tmp_path):
    (tmp_path / "cases.py").write_text(SUITE)
    (tmp_path / "test_suite.py").write_text("from cases import *  # noqa: F403\n")
    out = tmp_path / "run.json"
    r = run_cli("watch", "-q", "--json", str(out), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_suite.py",
                cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    tests = [e["test"].split("::")[1] for e in data["events"]]
    # the counts are unchanged: every case compiles
    assert tests == ["test_classes"] * 3 + ["test_class_and_keyword"] * 2 + ["test_captured_class"] * 2 + ["test_checked_rerun"] * 3 + \
        ["test_static_function_field"] * 2
    found = {f["compile_index"]: f for f in data["findings"] if f["code"] in ("JW403", "JW404")}
    # (a) the class changed: named, and no "create once"; the third case pairs with the first (same class)
    assert found[1]["details"]["key_difference"] == "pytree container"
    assert "t: A -> B" in found[1]["details"]["differences"]
    assert found[1]["fix"]["title"] != fixes.CREATE_ONCE.title
    assert found[2]["details"]["earlier_index"] == 0 and found[2]["fix"]["title"] == fixes.CREATE_ONCE.title
    assert found[2]["details"]["key_difference"].startswith("a new function object (equal bindings")
    # (b) another captured class: one object could not serve both cases
    assert 6 not in found
    # (c) the leak-checked re-run is not paired; the unchecked repeat pairs with the unchecked first call
    assert 8 not in found
    assert found[9]["details"]["earlier_index"] == 7 and found[9]["fix"]["title"] == fixes.CREATE_ONCE.title
    # (d) a function in a static field: one function object, never "make it a leaf"
    assert found[11]["fix"]["title"] == fixes.STATIC_FUNCTION_FIELD.title
    assert found[11]["details"]["key_difference"].startswith("a function in a static field")
    # the class change comes first, with its fix, before the keyword that changed with it
    assert found[4]["details"]["key_difference"].startswith("pytree container and ")
    assert found[4]["fix"]["title"] == found[1]["fix"]["title"]
    assert sorted(found) == [1, 2, 4, 9, 11]
    # JAX agrees with (a) and (d): one object compiles once per class, and once per function in a static field
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda t: t[0] * 2.0)
    f((jnp.ones(3),))
    f([jnp.ones(3)])  # another container class: a compile of the same program by one object
    assert f._cache_size() == 2

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class T:
        x: jax.Array
        fn: object = dataclasses.field(metadata=dict(static=True))

    g = jax.jit(lambda s: s.x * 7.0)
    g(T(jnp.ones(3), lambda v: v))
    g(T(jnp.ones(3), lambda v: v))
    assert g._cache_size() == 2
    one = lambda v: v  # noqa: E731
    h = jax.jit(lambda s: s.x * 7.0)
    h(T(jnp.ones(3), one))
    h(T(jnp.ones(3), one))  # the fix: one function object, one compile
    assert h._cache_size() == 1
