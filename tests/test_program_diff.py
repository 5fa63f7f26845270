"""`jitscope diff` on programs: how a function's program changed between two real watch runs
(analyze/program_diff.py), and run B's duplicate compiles."""

from __future__ import annotations

import json

import pytest

from jitscope._diff import diff

PROGRAM = '''
import sys
import jax
import jax.numpy as jnp

LR = float(sys.argv[1])
ACT = jnp.cos if "cos" in sys.argv else jnp.tanh


@jax.jit
def step(w):
    return w - LR * ACT(w)


@jax.jit
def same(x):
    return x * 2.0


step(jnp.ones(4))
same(jnp.ones(4))
if "weak" in sys.argv:
    same(2.0)
    same(jnp.float32(2.0))      # the same program again: a duplicate compile in this run
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import run_cli

    d = tmp_path_factory.mktemp("progdiff")
    prog = d / "prog.py"
    prog.write_text(PROGRAM)
    out = {}
    for name, args, kind in (("a", ["0.1"], "json"), ("b", ["0.01"], "events"), ("c", ["0.1", "cos", "weak"], "json")):
        path = d / f"{name}.{'json' if kind == 'json' else 'jsonl'}"
        r = run_cli("watch", "-q", f"--{kind}", str(path), str(prog), *args)
        assert r.returncode == 0, r.stderr
        out[name] = path
    out["dir"] = d
    return out


def test_constant_only_difference_names_both_values(runs):
    from conftest import run_cli

    result = diff(runs["a"], runs["b"])  # a --json result against an --events file
    (change,) = result.programs
    assert change.function == "step" and change.status == "constants_only"
    assert [(c.a, c.b) for c in change.constants] == [("0.1 : f32", "0.01 : f32")]
    assert "dense<0.1>" in change.first_a and "dense<0.01>" in change.first_b
    assert "differs only in constants: 0.1 : f32 in A, 0.01 : f32 in B" in change.summary()
    r = run_cli("diff", str(runs["a"]), str(runs["b"]), "--json", str(runs["dir"] / "d.json"))
    assert r.returncode == 0, r.stderr
    assert "differs only in constants: 0.1 : f32 in A, 0.01 : f32 in B" in r.stdout
    data = json.loads((runs["dir"] / "d.json").read_text())
    assert data["programs"][0]["constants"] == [{"position": 0, "a": "0.1 : f32", "b": "0.01 : f32"}]


def test_structural_change_shows_the_first_differing_op(runs):
    result = diff(runs["a"], runs["c"])
    (change,) = [c for c in result.programs if c.function == "step"]
    assert change.status == "differs"
    assert "stablehlo.tanh" in change.first_a and "stablehlo.cosine" in change.first_b
    assert change.line is not None and change.line > 1
    assert not [c for c in result.programs if c.function == "same"]  # B still has A's program of `same`


def test_duplicate_compiles_of_run_b(runs):
    from conftest import run_cli

    result = diff(runs["a"], runs["c"])
    (dup,) = result.duplicates
    assert dup.code == "JW403" and dup.function == "same" and dup.details["key_difference"] == "weak type"
    assert dup.seconds > 0
    assert not diff(runs["a"], runs["b"]).duplicates
    r = run_cli("diff", str(runs["a"]), str(runs["c"]))
    assert "Duplicate compiles in B: 1" in r.stdout and "first differing op" in r.stdout
