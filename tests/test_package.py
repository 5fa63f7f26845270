"""The wheel installs into a fresh venv and runs from outside the source tree (issue 10 item 4)."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TINY = """
import jax, jax.numpy as jnp
f = jax.jit(lambda x: x * 2)
for n in (3, 4):
    f(jnp.ones(n))
print("tiny done")
"""


@pytest.mark.slow
def test_wheel_installs_and_runs_in_a_fresh_venv(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, timeout=300, cwd=tmp_path)
    (wheel,) = wheels.glob("jitscope-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "jitscope/py.typed" in names
    assert any(n.startswith("jitscope/schema/") and n.endswith(".json") for n in names)
    src = ROOT / "src"
    data = [str(f.relative_to(src)) for f in (src / "jitscope").rglob("*")
            if f.is_file() and f.suffix not in (".py", ".pyc")]
    assert data and not [d for d in data if d not in names]  # every package data file shipped
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "jitscope = jitscope.cli:main" in entry and "[pytest11]" in entry

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, timeout=600)
    work = tmp_path / "work"  # not the source tree: the installed package must be what runs
    work.mkdir()
    (work / "tiny.py").write_text(TINY)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"JAX_PLATFORMS": "cpu"}
    exe = str(venv / "bin" / "jitscope")

    def run(*args):
        return subprocess.run([exe, *args], capture_output=True, text=True, cwd=work, env=env, timeout=300)

    v = run("--version")
    assert v.returncode == 0 and v.stdout.startswith("jitscope "), v.stderr
    lint = run("lint", "tiny.py")
    assert lint.returncode in (0, 1) and "Traceback" not in lint.stderr, lint.stderr
    w = run("watch", "tiny.py")
    assert w.returncode == 0, w.stderr[-3000:]
    assert "tiny done" in w.stdout and "recompile" in w.stdout + w.stderr
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import jitscope; print(jitscope.__file__)"],
                           capture_output=True, text=True, cwd=work, env=env, timeout=120)
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout
