"""Nothing jitscope does makes JAX compile again what it compiled before (issue 24 item 4).

JAX keys every jit cache on its tracing context: the value of every config option registered with
``include_in_trace_context``. Importing a module that registers one grows the context, and every function
compiled before the import compiles again on its next call. On JAX 0.12 ``import jax.extend`` (any
submodule) does that: it loads ``jax.extend.pallas``, which registers ``pallas_grid_context`` and
``pallas_dynamic_shapes_export``. jitscope imported ``jax.extend.core`` lazily while analysing a compile,
so every program watched on 0.12 recompiled everything once (docs/watch.md, "What it measures").

Two checks, on whichever JAX runs the suite (0.10 by ``make test``, 0.12 by ``make test-newest``):
every JAX module named in jitscope's source, and every jitscope module, imported after ``import jax``
leaves the tracing context as it was (a future lazy import cannot bring the bug back unseen); and a real
program that counts its own backend compiles compiles nothing again after jitscope watched it.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, run_cli

import jitscope

SRC = Path(jitscope.__file__).parent  # the jitscope this test runs


def _jax_modules_named_in_source() -> list[str]:
    """Every ``jax``/``jaxlib`` module (or ``from`` target) any jitscope module imports, at any depth."""
    out: set[str] = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.split(".")[0] in ("jax", "jaxlib"))
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] in ("jax", "jaxlib"):
                out.add(node.module)
                out.update(f"{node.module}.{a.name}" for a in node.names)  # submodules imported by name
    return sorted(out)


_PROBE_IMPORTS = """
import importlib, json, pkgutil, sys
import jax, jax.numpy
from jitscope import _jaxcompat
mods, jitscope_too = json.loads(sys.argv[1]), sys.argv[2] == "1"
if jitscope_too:
    import jitscope
    mods += sorted(m.name for m in pkgutil.walk_packages(jitscope.__path__, "jitscope.")
                   if not m.name.endswith("__main__"))
grew = []
before = _jaxcompat.tracing_context_names()
assert before, "this JAX has no tracing context to compare"
for name in mods:
    try:
        importlib.import_module(name)
    except ImportError:
        continue  # a name imported from a module, or a module of another JAX release
    now = _jaxcompat.tracing_context_names()
    if now != before:
        grew.append([name, sorted(set(now) - set(before)) or [f"{len(before)} -> {len(now)} values"]])
        before = now
print(json.dumps(grew))
"""


def _grown_by(mods: list[str], jitscope_too: bool) -> list[list]:
    proc = subprocess.run([sys.executable, "-c", _PROBE_IMPORTS, json.dumps(mods), "1" if jitscope_too else "0"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_no_jax_module_jitscope_imports_grows_the_tracing_context():
    mods = _jax_modules_named_in_source()
    assert "jax._src.pjit" in mods and "jax.monitoring" in mods  # the scan sees imports inside functions
    assert _grown_by(mods, jitscope_too=True) == []


def test_the_probe_sees_a_module_that_grows_the_context(tmp_path):
    """The check above can fail: a config option registered by an import is seen, by name."""
    (tmp_path / "grows_ctx.py").write_text(
        "from jax._src import config\n"
        "config.bool_state('jitscope_probe_option', False, help='test', include_in_jit_key=True,\n"
        "                  include_in_trace_context=True)\n")
    proc = subprocess.run([sys.executable, "-c", _PROBE_IMPORTS, json.dumps(["grows_ctx"]), "0"], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env={**_env(), "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [["grows_ctx", ["jitscope_probe_option"]]]


def _env() -> dict[str, str]:
    return {**os.environ, "JAX_PLATFORMS": "cpu"}


def _probe_result(stdout: str) -> dict:
    line = next(x for x in stdout.splitlines() if x.startswith("JIT_KEY_PROBE "))
    return json.loads(line.removeprefix("JIT_KEY_PROBE "))


@pytest.fixture(scope="module")
def plain() -> dict:
    proc = subprocess.run([sys.executable, str(FIXTURES / "jit_key_probe.py"), "plain"], capture_output=True,
                          text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    return _probe_result(proc.stdout)


def test_the_program_alone_compiles_nothing_again(plain):
    assert plain["first"] >= 10 and plain["again"] == []


def test_a_watch_block_and_its_result_make_jax_compile_nothing_again(plain):
    proc = subprocess.run([sys.executable, str(FIXTURES / "jit_key_probe.py"), "api"], capture_output=True,
                          text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = _probe_result(proc.stdout)
    assert got["again"] == [], f"compiled again after jitscope.watch: {got['again']}"


def test_watch_with_dumps_makes_jax_compile_nothing_again(plain, tmp_path):
    proc = run_cli("watch", "--dump", str(tmp_path / "dump"), "--json", str(tmp_path / "run.json"),
                   str(FIXTURES / "jit_key_probe.py"), "cli", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = _probe_result(proc.stdout)
    assert got["again"] == [], f"compiled again under jitscope watch: {got['again']}"
    assert got["first"] == plain["first"]  # and watch itself compiled nothing in the program's process
    assert any((tmp_path / "dump").iterdir())  # the dumps were written while the program ran


_GROWS_MID_RUN = '''
import sys
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return x * 2

step(jnp.ones(3))
if sys.argv[1] == "jax.extend":
    import jax.extend  # on JAX 0.12: registers pallas options every jit key includes
else:  # what such a module does
    from jax._src import config
    config.bool_state("user_module_option", False, help="", include_in_jit_key=True, include_in_trace_context=True)
step(jnp.ones(3))
'''


@pytest.mark.parametrize("how", ["option", "jax.extend"])
def test_a_user_import_that_grows_the_context_is_named_as_the_recompile_reason(how, tmp_path):
    """The same recompile when the user's program does it: watch names the cause (JAX's own explanation
    only says the number of context values differs)."""
    if how == "jax.extend" and not _grown_by(["jax.extend"], jitscope_too=False):
        pytest.skip("importing jax.extend leaves this JAX's tracing context as it is (JAX 0.12 grows it)")
    prog = tmp_path / "prog.py"
    prog.write_text(_GROWS_MID_RUN)
    proc = run_cli("watch", "--json", str(tmp_path / "run.json"), str(prog), how, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    events = json.loads((tmp_path / "run.json").read_text())["events"]
    assert [e["function"] for e in events] == ["step", "step"]
    reason = events[1]["reason"]
    assert reason["category"] == "other"
    assert reason["detail"].startswith("JAX's tracing context grew from "), reason
    assert "a module imported in between registered config options that every jit key includes" in reason["detail"]
