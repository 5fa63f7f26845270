"""Where users start programs (issue 11 item 3), each run for real in a subprocess:
``jitscope watch -m pkg.mod`` from the package's directory, ``jitscope watch -m pytest -W error``,
the ``JITSCOPE=watch`` startup hook (a child process included) and ``--live``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import compile_lines

BIN = Path(sys.executable).parent

TRAIN = """\
import subprocess, sys
import jax, jax.numpy as jnp
step = jax.jit(lambda x: x * 2)
step(jnp.ones(3)); step(jnp.ones(4)); step(jnp.ones(3))
print("train done", flush=True)
if sys.argv[1:] == ["--spawn"]:
    subprocess.run([sys.executable, "-m", "pkg.child"], check=True)
"""
CHILD = """\
import jax, jax.numpy as jnp
def child_fn(x):
    return x + 1
jax.jit(child_fn)(jnp.ones(5))
"""
LIVE = """\
import sys
import jax, jax.numpy as jnp
f = jax.jit(lambda x: x * 2)
f(jnp.ones(3))
print("after first", file=sys.stderr, flush=True)
f(jnp.ones(4))
print("after second", file=sys.stderr, flush=True)
f(jnp.ones(3)); f(jnp.ones(4))
print("after hits", file=sys.stderr, flush=True)
"""
PYTEST_FILE = """\
import jax, jax.numpy as jnp
def test_a():
    assert jax.jit(lambda x: x + 1)(jnp.ones(2)).sum() == 4
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JITSCOPE") and k != "PYTHONPATH"}
    return {**env, "JAX_PLATFORMS": "cpu", "COLUMNS": "160", **extra}


def _run(cmd: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(TRAIN)
    (pkg / "child.py").write_text(CHILD)
    (tmp_path / "live.py").write_text(LIVE)
    (tmp_path / "test_small.py").write_text(PYTEST_FILE)
    return tmp_path


def test_watch_dash_m_finds_a_package_in_the_current_directory(project: Path) -> None:
    # The console script's sys.path[0] is the venv's bin, not the cwd: `python -m` semantics are jitscope's job.
    p = _run([str(BIN / "jitscope"), "watch", "--json", "out.json", "-m", "pkg.train"], project)
    assert p.returncode == 0, p.stderr
    assert "train done" in p.stdout
    data = json.loads((project / "out.json").read_text())
    assert data["program"] == "-m pkg.train"
    assert len(data["events"]) == 2  # shape 3, shape 4; the third call is a cache hit


def test_watch_dash_m_pytest_is_clean_under_W_error(project: Path) -> None:
    p = _run([str(BIN / "jitscope"), "watch", "-q", "-m", "pytest", "-W", "error", "-p", "no:cacheprovider",
              "test_small.py"], project)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout and "warning" not in p.stdout.lower(), p.stdout
    # Without -W error: no warnings added to the run either.
    p = _run([str(BIN / "jitscope"), "watch", "-q", "-m", "pytest", "-p", "no:cacheprovider", "test_small.py"],
             project)
    assert p.returncode == 0 and "warning" not in p.stdout.lower(), p.stdout


def _hook_installed() -> None:
    import site

    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    found = [Path(d) / "jitscope-autowatch.pth" for d in dirs if (Path(d) / "jitscope-autowatch.pth").exists()]
    assert found, ("jitscope-autowatch.pth is not in site-packages: reinstall jitscope (make .venv/.installed-test, "
                   "or pip install -e .) so setup.py installs the startup hook")
    src = Path(__file__).resolve().parent.parent / "src" / "jitscope-autowatch.pth"
    assert found[0].read_text() == src.read_text(), (
        f"{found[0]} is an older startup hook than {src}: reinstall (make test does when the .pth changes)")


def test_env_switch_watches_a_launched_program_and_its_child(project: Path) -> None:
    _hook_installed()
    out = project / "watchdir"
    p = _run([sys.executable, "-m", "pkg.train", "--spawn"], project, JITSCOPE="watch", JITSCOPE_DIR=str(out))
    assert p.returncode == 0, p.stderr
    assert "train done" in p.stdout and "jitscope:" not in p.stderr
    results = sorted(out.glob("jitscope-*.json"))
    assert len(results) == 2, list(out.iterdir())  # parent and child, one pair of files each
    by_fn = {}
    for r in results:  # jitscope-<pid>-<host>-<random>.json and its events file
        token = r.name[len("jitscope-"):].split(".")[0]
        assert token.split("-")[0].isdigit() and len(token.split("-")[-1]) == 8
        events = compile_lines(out / f"jitscope-{token}.events.jsonl")
        data = json.loads(r.read_text())
        assert len(events) == len(data["events"])
        by_fn[tuple(sorted({e["function"] for e in data["events"]}))] = len(events)
    assert by_fn == {("<lambda>",): 2, ("child_fn",): 1}
    # Without the variable nothing is written.
    p = _run([sys.executable, "-m", "pkg.train"], project, JITSCOPE_DIR=str(project / "none"))
    assert p.returncode == 0 and not (project / "none").exists()


def test_env_switch_unknown_value_is_quiet_unless_asked(project: Path) -> None:
    _hook_installed()
    p = _run([sys.executable, "-m", "pkg.train"], project, JITSCOPE="yes")
    assert p.returncode == 0 and "train done" in p.stdout
    assert "jitscope" not in p.stderr  # the name may mean something to another tool
    p = _run([sys.executable, "-m", "pkg.train"], project, JITSCOPE="yes", JITSCOPE_VERBOSE="1")
    assert p.returncode == 0 and "train done" in p.stdout
    assert p.stderr.strip().splitlines() == ["jitscope: JITSCOPE='yes' not understood (use JITSCOPE=watch); "
                                             "not watching"]


def test_env_switch_imports_nothing_and_writes_nothing_in_a_process_without_jax(project: Path) -> None:
    _hook_installed()
    out = project / "nojax"
    code = "import sys; print(sorted(m for m in sys.modules if m.startswith(('jax', 'jitscope'))))"
    p = _run([sys.executable, "-c", code], project, JITSCOPE="watch", JITSCOPE_DIR=str(out))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert p.stdout.split() == ["['jitscope_autowatch_hook']"]  # the stdlib-only hook, loaded by path: no package
    assert not out.exists()
    # JAX imported, nothing compiled: attached, still nothing written
    code = "import sys, jax; print('jitscope._watch' in sys.modules)"
    p = _run([sys.executable, "-c", code], project, JITSCOPE="watch", JITSCOPE_DIR=str(out))
    assert p.returncode == 0 and p.stdout.split() == ["True"], p.stderr
    assert not out.exists() or not list(out.iterdir())


def test_env_switch_output_directory_gone_is_one_line_and_the_program_keeps_its_exit(project: Path) -> None:
    _hook_installed()
    out = project / "gone"
    code = ("import os, shutil, sys; os.makedirs(sys.argv[1]); shutil.rmtree(sys.argv[1]); open(sys.argv[1], 'w')\n"
            "import jax, jax.numpy as jnp\njax.jit(lambda x: x + 1)(jnp.ones(2))\nprint('ran'); sys.exit(4)")
    p = _run([sys.executable, "-c", code, str(out)], project, JITSCOPE="watch", JITSCOPE_DIR=str(out))
    assert p.returncode == 4 and p.stdout.split() == ["ran"], p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("jitscope: ") and "cannot write" in line for line in lines), p.stderr


def test_live_prints_one_line_per_recompile_as_it_happens(project: Path) -> None:
    p = _run([str(BIN / "jitscope"), "watch", "-q", "--live", "live.py"], project)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    live = [i for i, line in enumerate(lines) if line.startswith("jitscope: recompile")]
    assert len(live) == 1, p.stderr  # the first compile and the cache hits print nothing
    assert lines.index("after first") < live[0] < lines.index("after second")
    assert "live.py:6" in lines[live[0]] and "shape" in lines[live[0]]


POOL = """\
import multiprocessing as mp


def work(n):
    import jax, jax.numpy as jnp
    return float(jax.jit(lambda x: x * 2)(jnp.ones(n)).sum())


if __name__ == "__main__":
    with mp.get_context("spawn").Pool(2) as pool:     # its exit ends the workers with SIGTERM
        print(pool.map(work, [3, 4, 5, 6]), flush=True)
"""


def test_env_switch_spawn_pool_workers_write_their_results(project: Path) -> None:
    _hook_installed()
    (project / "pool.py").write_text(POOL)
    out = project / "pool-out"
    p = _run([sys.executable, "pool.py"], project, JITSCOPE="watch", JITSCOPE_DIR=str(out))
    assert p.returncode == 0 and "[6.0, 8.0, 10.0, 12.0]" in p.stdout, p.stderr
    events = sorted(out.glob("jitscope-*.events.jsonl"))
    results = sorted(out.glob("jitscope-*.json"))
    assert len(events) == 2 and len(results) == 2, sorted(f.name for f in out.iterdir())  # the parent: no JAX
    for r in results:
        token = r.name[len("jitscope-"):].split(".")[0]
        assert len(json.loads(r.read_text())["events"]) == len(compile_lines(out / f"jitscope-{token}.events.jsonl"))
    assert sum(len(json.loads(r.read_text())["events"]) for r in results) >= 4


def test_env_switch_stamps_each_compile_with_its_test(project: Path) -> None:
    """``JITSCOPE=watch pytest``: the watch starts when the test module imports JAX, after pytest configured the
    plugin; the suite is still the watched program, so each compile carries its test's node id (the per-test
    pairing and the test-scope filters depend on it)."""
    _hook_installed()
    out = project / "stamped"
    p = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_small.py"], project,
             JITSCOPE="watch", JITSCOPE_DIR=str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    (result,) = [f for f in out.iterdir() if f.name.endswith(".json")]
    events = json.loads(result.read_text())["events"]
    assert events and {e["test"] for e in events} == {"test_small.py::test_a"}, events
