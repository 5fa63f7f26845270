"""A venv with jitscope on PYTHONPATH but not its requirements (a held-out scorer's probdiffeq venv had no `rich`):
the command still writes what it recorded, then says in one line what is missing, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

BLOCK = textwrap.dedent("""
    import importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "rich" or name.startswith("rich."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Block())
    from jitscope.cli import main
    raise SystemExit(main(sys.argv[1:]))
""")


def _run(tmp_path, *args):
    return subprocess.run([sys.executable, "-c", BLOCK, *args], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"}, timeout=600)


def test_watch_without_rich_writes_its_json_and_says_what_is_missing(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import jax, jax.numpy as jnp\nf = jax.jit(lambda x: x + 1)\nprint(float(f(jnp.ones(()))))\n")
    out = tmp_path / "w.json"
    p = _run(tmp_path, "watch", "--json", str(out), str(prog))
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("jitscope: ")]
    assert lines and lines[-1].startswith("jitscope: a dependency of jitscope is missing: No module named 'rich'")
    assert "Traceback" not in p.stderr
    assert "2.0" in p.stdout  # the program ran
    data = json.loads(out.read_text())  # what was recorded was written before the summary
    assert data["exit_code"] == 0 and data["functions"]


def test_a_programs_own_missing_module_is_still_the_programs(tmp_path):
    """Only an import inside jitscope's own files is jitscope's dependency: a target module's failed import stays
    the usage error it was (innermost source frame: the user's file)."""
    (tmp_path / "prog2.py").write_text("import no_such_module_xyz\ndef f(x):\n    return x\n")
    p = subprocess.run([sys.executable, "-m", "jitscope", "inspect", "prog2:f", "--args", "1.0"], capture_output=True,
                       text=True, cwd=tmp_path, env={**os.environ, "JAX_PLATFORMS": "cpu"}, timeout=600)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1] == (
        "jitscope: cannot import module 'prog2': No module named 'no_such_module_xyz'")
    assert "a dependency of jitscope is missing" not in p.stderr
