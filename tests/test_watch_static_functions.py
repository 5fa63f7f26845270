"""A static argument that is a container of functions (issue #24): optax's GradientTransformation, a NamedTuple
of closures marked static. Under real JAX a rebuilt one is a new cache key (tuples hash and compare their
members, functions by identity), so the same program compiles again; watch records such a value as hashed by
identity through its members and advises building it once (dropping it from static_argnums would not trace: a
function is not an array). Look-alikes stay quiet: the transform built once, a NamedTuple of numbers rebuilt."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp

from jitscope.collect.watch_signature import identity_members, static_repr
from jitscope.model import has_identity_members, is_identity_hashed
from jitscope.results import load_result

FIXTURES = Path(__file__).parent / "fixtures"


def _fixture():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_static_fns", FIXTURES / "watch_static_functions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_jax_recompiles_for_a_rebuilt_tuple_of_closures_and_not_for_a_tuple_of_numbers():
    m = _fixture()
    a, b = m.sgd(0.1), m.sgd(0.1)
    assert hash(a) != hash(b) and a != b  # the members are new closures
    assert hash(m.Hyper(0.1, 0.9)) == hash(m.Hyper(0.1, 0.9))

    @partial(jax.jit, static_argnums=(1,))
    def f(x, tx):
        return tx.update(x, x)[0]

    x = jnp.ones(3)
    f(x, a), f(x, a), f(x, b)
    assert f._cache_size() == 2  # the rebuilt transform: a second entry, same program
    assert identity_members(a) == ["init=sgd.<locals>.init", "update=sgd.<locals>.update"]
    assert identity_members(m.Hyper(0.1, 0.9)) == [] and identity_members((1, (2, "a"))) == []
    assert identity_members((1, (m.sgd, 2))) == ["[1].[0]=sgd"]
    text = static_repr(a)
    assert is_identity_hashed(text) and has_identity_members(text) and "init=sgd.<locals>.init" in text
    assert not is_identity_hashed(static_repr(m.Hyper(0.1, 0.9)))
    assert has_identity_members(static_repr(a.update)) and "sgd.<locals>.update" in static_repr(a.update)
    assert has_identity_members(static_repr(partial(m.sgd, 0.1)))
    assert not has_identity_members(static_repr(object())) and is_identity_hashed(static_repr(object()))


def test_a_rebuilt_static_tuple_of_functions_gets_the_build_once_fix(tmp_path):
    from conftest import run_cli

    program = FIXTURES / "watch_static_functions.py"
    out = tmp_path / "w.json"
    p = run_cli("watch", "--json", str(out), "--slow-compile", "600", str(program))
    assert out.exists(), p.stderr[-2000:]
    result = load_result(out)
    compiles = {}
    for e in result.events:
        compiles[e.function] = compiles.get(e.function, 0) + 1
    assert (compiles["step"], compiles["step_once"], compiles["step_hyper"], compiles["step_eqx"]) == (3, 1, 1, 3)
    expected = {(m.group(1), m.group(2), i) for i, line in enumerate(program.read_text().splitlines(), 1)
                if (m := re.search(r"# expect: (JW\d{3}) (\S+)\s*$", line))}
    findings = [f for f in result.findings if f.code.startswith("JW")]
    assert {(f.code, f.function, f.location.line) for f in findings} == expected
    for f in findings:
        assert f.fix.title.startswith("build the static object once"), f.fix.title
        assert "static_argnums" not in f.fix.title
    for fn, mark in (("step", "members hashed by identity"), ("step_eqx", "a function hashed by identity")):
        reasons = [e.reason for e in result.events if e.function == fn and e.reason.category != "first_compile"]
        assert len(reasons) == 2 and all(r.category == "static_unhashable" and mark in r.detail for r in reasons)
        (fix,) = [fx for fx in result.fixes if f"`{fn}`" in fx.title]
        assert fix.title.startswith("Build the static object once") and fix.saving_compiles == 2
