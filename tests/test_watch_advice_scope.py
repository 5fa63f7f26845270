"""Advice only where one user action merges the compiles (analyze/advice_scope.py), on real JAX runs.

Found on real suites (issue #24): under `jitscope watch -m pytest`, JW403 paired compiles of different
parametrizations of one test and advised "create the jitted function once", and the fix total summed them;
two jit objects with other options (donation) were "the same function rebuilt"; a library's own
init/apply compiles were advice to the user; JW301 said "baked into the compiled program" on an
`eval_shape`, which compiles nothing.
"""

from __future__ import annotations

import json

from conftest import run_cli

SUITE = '''
import jax
import jax.numpy as jnp
import pytest


@pytest.mark.parametrize("n", [1, 2, 3])
def test_rebuilt_per_parametrization(n):
    f = jax.jit(lambda x: x * 2.0)           # one object per test: JAX compiles it once per test, rightly
    f(jnp.ones(3))


def test_weak_then_strong():
    g = jax.jit(lambda x, y: jnp.sin(x) * y)
    g(1.0, jnp.ones(3))
    g(jnp.float32(1.0), jnp.ones(3))          # within one test: a real duplicate, one action fixes it


def test_rebuilt_in_a_loop():
    for _ in range(3):
        jax.jit(lambda v: v + 1.5)(jnp.ones(2))   # within one test, one call site: "create it once" is right
'''


def _watch_pytest(tmp_path, *pytest_args: str) -> dict:
    (tmp_path / "test_suite.py").write_text(SUITE)
    out = tmp_path / "run.json"
    r = run_cli("watch", "-q", "--json", str(out), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_suite.py",
                *pytest_args, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(out.read_text())


def test_watch_pytest_pairs_compiles_within_one_test_only(tmp_path):
    data = _watch_pytest(tmp_path)
    tests = [e["test"] for e in data["events"]]
    assert tests[:3] == [f"test_suite.py::test_rebuilt_per_parametrization[{n}]" for n in (1, 2, 3)]
    assert set(tests[3:5]) == {"test_suite.py::test_weak_then_strong"}
    dups = [(f["code"], data["events"][f["compile_index"]]["test"].split("::")[1], f["details"]["key_difference"])
            for f in data["findings"] if f["code"] in ("JW403", "JW404")]
    assert dups == [
        ("JW403", "test_weak_then_strong", "weak type"),
        ("JW403", "test_rebuilt_in_a_loop", "a new function object (equal bindings: the same function rebuilt)"),
        ("JW403", "test_rebuilt_in_a_loop", "a new function object (equal bindings: the same function rebuilt)")]
    # The fixes and their total count only compiles one change in one test removes: 1 + 2, not the
    # parametrizations' 2 more.
    assert data["fixes_total"]["compiles"] == 3
    titles = [f["title"] for f in data["fixes"]]
    assert not any("test_rebuilt_per_parametrization" in t for t in titles)


def test_jit_options_make_another_function_not_a_rebuild(tmp_path):
    prog = tmp_path / "options.py"
    prog.write_text(
        "import jax, jax.numpy as jnp\n"
        "def step(w):\n"
        "    return w * 0.5 + 1.0\n"
        "for options in ({}, {'backend': 'cpu'}):\n"
        "    jax.jit(step, **options)(jnp.ones(4))   # two functions (another option), one program\n"
        "for _ in range(2):\n"
        "    jax.jit(lambda w: w - 2.0)(jnp.ones(4))             # the same function rebuilt, same options\n")
    out = tmp_path / "r.json"
    r = run_cli("watch", "-q", "--json", str(out), str(prog))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    steps = [e for e in data["events"] if e["function"] == "step"]
    assert [e["jit_options"] for e in steps] == ["", "backend='cpu'"]
    assert steps[0]["fingerprint"] == steps[1]["fingerprint"]  # the same program, still no duplicate
    found = [(f["code"], f["function"]) for f in data["findings"] if f["code"] in ("JW403", "JW404")]
    assert found == [("JW403", "<lambda>")]
    assert not any("step" in f["title"] for f in data["fixes"])


def test_a_librarys_own_compiles_are_not_advice(tmp_path):
    lib = tmp_path / "site-packages" / "fakelib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(
        "import jax, jax.numpy as jnp\n"
        "def init_and_apply():\n"
        "    f = jax.jit(lambda p, x: p * x + 1.0)\n"
        "    f(1.0, jnp.ones(3))                 # the library's init: a Python scalar\n"
        "    return f(jnp.float32(1.0), jnp.ones(3))   # its apply: an array, the same program\n")
    (lib / "solvers.py").write_text(
        "import functools, jax, jax.numpy as jnp\n"
        "@functools.partial(jax.jit, static_argnames='verbose')\n"
        "def solve(x, verbose=False):\n"
        "    return x * 2.0                      # verbose is static by the library's choice\n"
        "@jax.jit\n"
        "def scale(x, y):\n"
        "    return x * y + 3.0\n"
        "@functools.partial(jax.jit, static_argnames='order')\n"
        "def expand(x, order=1.0):\n"
        "    return x * order + 1.0              # the static option is baked in as a constant\n")
    prog = tmp_path / "user.py"
    prog.write_text("import jax.numpy as jnp\nimport fakelib\nfrom fakelib import solvers\n"
                    "fakelib.init_and_apply()\n"
                    "solvers.solve(jnp.ones(3), verbose=False)\n"
                    "solvers.solve(jnp.ones(3), verbose=True)   # the library's static option: not the user's to change\n"
                    "solvers.scale(2.0, jnp.ones(3))\n"
                    "solvers.scale(jnp.float32(2.0), jnp.ones(3))   # the user's call: one type fixes it\n"
                    "solvers.expand(jnp.ones(3), order=2.0)\n"
                    "solvers.expand(jnp.ones(3), order=3.0)   # only constants differ: the library's static option\n")
    out = tmp_path / "r.json"
    r = run_cli("watch", "-q", "--json", str(out), str(prog), cwd=tmp_path,
                env={"PYTHONPATH": str(tmp_path / "site-packages")})
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    # the library jitted on the program's behalf: the call site is the program's line, the library's frame
    # is library_site (docs/watch.md, call sites)
    assert len(data["events"]) == 8 and "site-packages" in data["events"][1]["library_site"]["file"]
    assert data["events"][1]["call_site"]["file"] == str(prog)
    assert data["events"][6]["constants_blind_fingerprint"] == data["events"][7]["constants_blind_fingerprint"]
    assert data["events"][0]["fingerprint"] == data["events"][1]["fingerprint"]
    assert data["events"][2]["fingerprint"] == data["events"][3]["fingerprint"]
    dups = [(f["code"], f["function"], f["details"]["key_difference"]) for f in data["findings"]
            if f["code"] in ("JW403", "JW404")]
    assert dups == [("JW403", "scale", "weak type")]
    assert [f["title"] for f in data["fixes"]] == ["Pass `x` to `scale` as typed arrays, not Python scalars"]


def test_traces_that_compile_nothing_get_no_compiled_program_findings(tmp_path):
    prog = tmp_path / "shapes.py"
    prog.write_text(
        "import jax, jax.numpy as jnp\n"
        "W = jnp.ones((512, 512))\n"
        "def f(x):\n"
        "    print('step called')\n"
        "    for _ in range(120):\n"
        "        x = jnp.sin(x @ W) + 1.0\n"
        "    return x\n"
        "jax.eval_shape(f, jnp.ones((4, 512)))\n"
        "jax.make_jaxpr(f)(jnp.ones((4, 512)))\n"
        "jax.jit(f).lower(jnp.ones((8, 512)))\n"
        "W = jnp.zeros((512, 512))\n")
    out = tmp_path / "r.json"
    r = run_cli("watch", "-q", "--json", str(out), "--slow-compile", "0.000001", str(prog))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["events"] == []
    codes = {f["code"] for f in data["findings"]}
    # the print ran at each trace: true of a trace that compiles nothing too
    assert "JW201" in codes
    assert not codes & {"JW301", "JW302", "JW401", "JW402", "JW403", "JW404"}, codes
