"""The paths lint prints and the files it finds, without pathlib on the lint path (issue #25 item 5): the
normalisation is pathlib's, checked against pathlib; a lint that finds its pyproject.toml imports no pathlib."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path, PurePath, PurePosixPath

import pytest

from jitscope.lint.config import find_config
from jitscope.lint.runner import collect_files, posix_path
from jitscope.lint.traced import _stem, module_name

PATHS = ["", ".", "./", "a", "a/", "a//b", "./a/./b/", "/", "//", "///", "//a//b/", "///a", "/./a", "a/../b",
         "../a", "a/b/..", ".a", "a.", "..", "...", " a/ b ", "a/./.", "./.", "/..", "a/.b/./", "////x/"]


@pytest.mark.parametrize("raw", PATHS)
def test_posix_path_is_pathlibs(raw):
    assert posix_path(raw) == str(PurePosixPath(raw))
    assert posix_path(PurePosixPath(raw)) == str(PurePosixPath(raw))


def test_posix_path_refuses_bytes_as_pathlib_does():
    with pytest.raises(TypeError):
        PurePosixPath(b"a")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        posix_path(b"a")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["m.py", "__init__.py", "a.b.py", ".py", "a.", ".hidden", "a", "a..py", "..", "x.tar.gz"])
def test_stem_is_pathlibs(name):
    assert _stem(name) == PurePath(name).stem


def test_collect_files_prints_paths_as_before(tmp_path, monkeypatch):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for f in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/m.py", "top.py"):
        (tmp_path / f).write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    assert collect_files(["./pkg//", "top.py/", "./top.py", Path("pkg")]) == [
        "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/m.py", "top.py"]
    assert module_name("pkg/sub/m.py") == "pkg.sub.m" and module_name("pkg/sub/__init__.py") == "pkg.sub"
    assert module_name(str(tmp_path / "top.py")) == "top"


def test_find_config_walks_up_to_the_nearest_jitscope_table(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[tool.jitscope]\nignore = []\n")
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no jitscope table: passed by
    (tmp_path / "a" / "b" / "f.py").write_text("")
    want = str((tmp_path / "pyproject.toml").resolve())
    assert find_config(tmp_path / "a" / "b" / "f.py") == want
    assert find_config(str(tmp_path / "a" / "b")) == want
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "a" / "b")
    assert find_config(link) == want  # the real path is walked, as Path.resolve() did


def test_a_lint_with_its_config_imports_no_pathlib(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitscope]\nignore = ["JS101"]\n')
    small = tmp_path / "small.py"
    small.write_text("import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    code = f"""
        import contextlib, io, os, sys
        os.chdir({str(tmp_path)!r})
        from jitscope.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            code = main(["lint", "--exit-zero", "small.py"])
        print(code, "JS101" in out.getvalue(), sorted(m for m in ("pathlib", "urllib.parse") if m in sys.modules))
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0 False []"  # the config was found and read (JS101 ignored), without pathlib
