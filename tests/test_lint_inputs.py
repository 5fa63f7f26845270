"""Hostile inputs to `jitscope lint`: special files, unreadable directories, bad configs, --jobs, deep code.

Each answers with a finding or one `jitscope:` line, never a hang or a traceback. The
unprivileged cases run the CLI as ``nobody`` (via ``setpriv``) when the suite runs as root,
because as root every directory is readable and every file writable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import jitscope
from jitscope.lint import lint_source
from jitscope.lint.runner import usable_cpus

ROOT = Path(__file__).resolve().parent.parent
SRC = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x: jax.Array):\n    return sum(x)\n"
HEAD = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x, y):\n"
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _nobody_can_run_jitscope() -> bool:
    """Root, setpriv, and a checkout and interpreter that an unprivileged user may read (a clone in a
    private 0700 directory, as ``mktemp -d`` makes, is not)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = subprocess.run([*NOBODY, sys.executable, "-c", "import jitscope"], capture_output=True, cwd="/",
                           env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60)
    return probe.returncode == 0


as_nobody = pytest.mark.skipif(not _nobody_can_run_jitscope(),
                               reason="needs root, setpriv and a checkout the unprivileged user 'nobody' can read")


@pytest.fixture
def open_tmp():
    """A fresh directory that an unprivileged user can reach (pytest's tmp_path root is private to root)."""
    d = Path(tempfile.mkdtemp(prefix="jitscope-lint-"))
    d.chmod(0o755)
    yield d
    for sub in d.rglob("*"):
        if sub.is_dir() and not sub.is_symlink():
            sub.chmod(0o755)
    shutil.rmtree(d)


def _run(*args, user=False, timeout=60):
    prefix = NOBODY if user else []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "JAX_PLATFORMS": "cpu"}
    return subprocess.run([*prefix, sys.executable, "-m", "jitscope", "lint", "--no-snippet", *args],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd="/")


def test_fifo_and_dev_zero_named_py_are_skipped_with_a_finding(tmp_path):
    (tmp_path / "ok.py").write_text(SRC)
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    r = _run(str(tmp_path), str(tmp_path / "pipe.py"), timeout=60)  # a read of either would never end
    assert r.returncode == 1 and r.stderr == ""
    out = r.stdout.splitlines()
    assert f"{tmp_path}/pipe.py:1:1: JS002 [error, certain] not a regular file (FIFO): skipped" in out
    assert f"{tmp_path}/zero.py:1:1: JS002 [error, certain] not a regular file (character device): skipped" in out
    assert any(line.startswith(f"{tmp_path}/ok.py:7:12: JS201") for line in out)


@as_nobody
def test_unreadable_directory_is_one_line_and_an_unreadable_subdirectory_a_finding(open_tmp):
    tmp_path = open_tmp
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o000)
    outer = tmp_path / "outer"
    (outer / "inner").mkdir(parents=True)
    (outer / "ok.py").write_text(SRC)
    (outer / "inner").chmod(0o000)
    try:
        r = _run(str(locked), user=True)
        assert (r.returncode, r.stdout, r.stderr) == (2, "", f"jitscope: {locked}: cannot read directory: "
                                                             "Permission denied\n")
        r = _run(str(outer), user=True)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert f"{outer}/inner:1:1: JS002 [error, certain] cannot read directory: Permission denied" in r.stdout.splitlines()
        assert f"{outer}/ok.py:7:12: JS201" in r.stdout
        private = Path(tempfile.mkdtemp())  # mode 0700, root's: nobody may not even look inside
        r = _run(str(private / "m.py"), user=True)
        assert (r.returncode, r.stderr) == (2, f"jitscope: {private / 'm.py'}: Permission denied\n")
        private.rmdir()
    finally:
        locked.chmod(0o755)
        (outer / "inner").chmod(0o755)


@as_nobody
def test_fix_refuses_another_users_file_in_a_writable_directory(open_tmp):
    tmp_path = open_tmp
    tmp_path.chmod(0o777)
    theirs = tmp_path / "theirs.py"
    theirs.write_text(SRC)  # owned by root, 0644: nobody may not write it, though it may write the directory
    theirs.chmod(0o644)
    r = _run("--fix", "--unsafe-fixes", str(theirs), user=True)
    assert r.returncode == 1 and r.stderr == ""
    assert f"{theirs}:1:1: JS002 [error, certain] fixes not written: permission denied" in r.stdout.splitlines()
    assert theirs.read_text() == SRC and theirs.stat().st_uid == 0
    assert sorted(os.listdir(tmp_path)) == ["theirs.py"]


@pytest.mark.parametrize(("content", "expected"), [
    (b"tool = 5\n", "{p}:1: 'tool' must be a table, not int"),
    (b"# a comment\n[tool]\njitscope = 3\n", "{p}:3: [tool.jitscope] must be a table"),
    (b"[tool.jitscope]\nselect = ['JS1']\n\x89PNG\x00\xff\n", "{p}:3: not a TOML file (byte 0x89 is not UTF-8)"),
    (b"[tool.jitscope]\nselect = [\n", "{p}: cannot read config: Invalid value (at end of document)"),
    (b"[tool.jitscope]\nselect = 'JS999'\n", "{p} [tool.jitscope] select: unknown rule code or prefix 'JS999' "
                                             "(see `jitscope rules`)"),
])
def test_bad_config_is_one_line_naming_the_file(tmp_path, content, expected):
    cfg = tmp_path / "pyproject.toml"
    cfg.write_bytes(content)
    (tmp_path / "m.py").write_text(SRC)
    r = _run("--config", str(cfg), str(tmp_path / "m.py"))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.splitlines() == [f"jitscope: {expected.format(p=cfg)}"]
    if content.startswith(b"[tool.jitscope]") and b"\x89" not in content:
        r = _run(str(tmp_path / "m.py"))  # found by the upward search: the same answer
        assert r.stderr.splitlines() == [f"jitscope: {expected.format(p=cfg)}"]


def test_jobs_are_clamped_to_the_cpus_and_the_work(tmp_path):
    files = []
    for i in range(30):
        p = tmp_path / f"m{i}.py"
        p.write_text(SRC)
        files.append(str(p))
    result = jitscope.lint(files, jobs=99_999, config=False)
    assert result.jobs == min(usable_cpus(), 30) and len(result.findings) == 30
    assert jitscope.lint(files[:1], jobs=64, config=False).jobs == 1
    r = _run("--jobs", "99999", str(tmp_path))
    assert r.returncode == 1 and r.stdout.count(": JS201 ") == 30 and r.stderr == ""


@pytest.mark.parametrize("body", [
    "    return " + " + ".join(["x * y"] * 1000) + "\n",  # sympy lambdify-style sums
    "    return " + "**".join(["x"] * 1000) + "\n",
    "    return x" + ".T" * 1000 + "\n",
    "    return x" + ".sum()" * 800 + "\n",
    "    return " + "-" * 1000 + "x\n",
])
def test_deep_valid_chains_are_linted(body):
    compile(HEAD + body, "deep.py", "exec")  # valid Python
    src = HEAD + "    if y > 0:\n        print(y)\n" + body
    assert [f.code for f in lint_source(src, "deep.py")] == ["JS101", "JS401"]


def test_code_too_deep_for_the_parser_is_info_not_a_syntax_error():
    src = HEAD + "    if y > 0:\n        return y\n    return " + " + ".join(["x"] * 20_000) + "\n"
    findings = lint_source(src, "huge.py")
    assert [(f.code, f.severity, f.name) for f in findings] == [("JS003", "info", "too-deep-to-analyse")]
    assert "not linted" in findings[0].message
