"""JS001 on code valid for a newer Python than the one linting it (issue #25; lint/pyversion.py).

A library whose ``requires-python`` is ``>= 3.12`` may use PEP 695 syntax; linted by Python 3.11 the file
does not parse, but it is not broken: JS001 is one ``info`` saying which Python could not parse it and which
one the code needs. Each case is checked against the running Python's own compiler: where it is new enough
the code compiles and lint reports nothing; where it is not, the finding is info. A real syntax error stays
an error, also inside a project that targets an older Python.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jitscope.lint import lint_source

NEWER = [  # (source, the Python whose grammar accepts it)
    ("import jax\ntype Vec = jax.Array\n", (3, 12)),
    ("import jax\ntype Pair[T] = tuple[T, T]\n", (3, 12)),
    ("import jax\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n", (3, 12)),
    ("import jax\nclass Box[T]:\n    pass\n", (3, 12)),
    ("import jax\ntry:\n    pass\nexcept ValueError, TypeError:\n    pass\n", (3, 14)),
]


def _compiles(src: str) -> bool:
    try:
        compile(src, "m.py", "exec")
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("src,need", NEWER)
def test_newer_grammar_is_info_below_its_python_and_valid_from_it(src: str, need: tuple[int, int]) -> None:
    found = [f for f in lint_source(src, "m.py") if f.code == "JS001"]
    if sys.version_info[:2] >= need:
        assert _compiles(src) and found == []
        return
    assert not _compiles(src)  # this Python rejects it: without the model it would be a JS001 error
    assert [(f.severity, f.confidence) for f in found] == [("info", "certain")]
    v = sys.version_info
    assert f"cannot parse with Python {v[0]}.{v[1]}" in found[0].message
    assert f"valid from Python {need[0]}.{need[1]}" in found[0].message


def test_a_real_syntax_error_stays_an_error() -> None:
    src = "import jax\ndef f(x)\n    return x\n"
    assert not _compiles(src)
    assert [(f.code, f.severity) for f in lint_source(src, "m.py")] == [("JS001", "error")]
    # a look-alike word `type` that is not an alias statement: still a syntax error
    src = "import jax\ntype = 3 +\n"
    assert [(f.code, f.severity) for f in lint_source(src, "m.py")] == [("JS001", "error")]


def _project(root: Path, declaration: tuple[str, str], body: str) -> Path:
    name, text = declaration
    (root / name).write_text(text)
    pkg = root / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "m.py").write_text(body)
    return pkg / "m.py"


@pytest.mark.parametrize("declaration", [
    ("pyproject.toml", '[project]\nname = "p"\nrequires-python = ">=3.{minor}"\n'),
    ("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.{minor}"\n'),
    ("setup.cfg", "[options]\npython_requires = >=3.{minor}\n"),
    ("setup.py", "from setuptools import setup\nsetup(name='p', python_requires='>=3.{minor}')\n"),
])
def test_project_targeting_a_newer_python_makes_a_pep701_fstring_info(tmp_path: Path, declaration) -> None:
    newer = max(sys.version_info[1] + 1, 12)
    name, text = declaration
    nested = 'import jax\nnames = ["a"]\nx = f"{", ".join(names)}"\n'  # PEP 701: nested quotes, valid from 3.12
    path = _project(tmp_path, (name, text.format(minor=newer)), nested)
    found = [f for f in lint_source(path.read_text(), str(path)) if f.code == "JS001"]
    if sys.version_info[:2] >= (3, 12):
        assert _compiles(nested) and found == []
        return
    assert not _compiles(nested)
    assert [(f.severity, f.confidence) for f in found] == [("info", "likely")]
    assert f"the project targets >= 3.{newer}" in found[0].message and "PEP 701" in found[0].message


def test_a_real_syntax_error_in_a_project_for_a_newer_python_stays_an_error(tmp_path: Path) -> None:
    """Bare text where a docstring lost its quotes: no Python's grammar accepts it, whatever the project targets."""
    path = _project(tmp_path, ("pyproject.toml", '[project]\nname = "p"\nrequires-python = ">=3.99"\n'),
                    "import jax\n\nForce symbol resolution before tensorflow loads.\njax.devices()\n")
    assert [(f.code, f.severity) for f in lint_source(path.read_text(), str(path))] == [("JS001", "error")]


def test_project_targeting_this_python_keeps_the_error(tmp_path: Path) -> None:
    v = sys.version_info
    path = _project(tmp_path, ("pyproject.toml", f'[project]\nname = "p"\nrequires-python = ">={v[0]}.{v[1]}"\n'),
                    "import jax\ndef f(x)\n    return x\n")
    assert [(f.code, f.severity) for f in lint_source(path.read_text(), str(path))] == [("JS001", "error")]


def test_a_pep701_fstring_in_a_project_that_declares_no_python_is_info(tmp_path: Path) -> None:
    """No declared Python: the project may target 3.12+, so the f-string the running parser rejects is possible,
    not proven (info); declaring this Python keeps it an error; another syntax error there stays an error."""
    nested = 'import jax\nnames = ["a"]\nx = f"{", ".join(names)}"\n'
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    path = pkg / "m.py"
    path.write_text(nested)
    found = [f for f in lint_source(nested, str(path)) if f.code == "JS001"]
    if sys.version_info[:2] >= (3, 12):
        assert _compiles(nested) and found == []
        return
    assert not _compiles(nested)
    assert [(f.severity, f.confidence) for f in found] == [("info", "likely")]
    assert "declares no Python version" in found[0].message and "PEP 701" in found[0].message
    broken = "import jax\ndef f(x)\n    return x\n"
    path.write_text(broken)
    assert [(f.code, f.severity) for f in lint_source(broken, str(path))] == [("JS001", "error")]
    v = sys.version_info
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "p"\nrequires-python = ">={v[0]}.{v[1]}"\n')
    from jitscope.lint import pyversion

    pyversion.project_python.cache_clear()
    path.write_text(nested)
    assert [(f.code, f.severity) for f in lint_source(nested, str(path))] == [("JS001", "error")]


CUT_SHORT = [  # PEP 701 f-strings that a pre-3.12 tokenizer cuts short: its message is not about an f-string
    'import jax\nx = f"a {len("b") # count\n}"\n',  # a comment inside a replacement field
    'import jax\nx = f"{"\\\\"}"\n',  # a backslash inside a replacement field
]


@pytest.mark.parametrize("src", CUT_SHORT)
def test_an_fstring_cut_short_by_the_old_tokenizer_is_info_without_a_declared_python(tmp_path: Path, src: str) -> None:
    """The old tokenizer ends the f-string at the nested quote or the `#` and reports an unterminated string or a
    stray backslash: with an f-string on the failing line, PEP 701 may accept it (checked where this Python is
    3.12+: it compiles). The same messages on a line with no f-string, and a bracket never closed around one,
    stay errors: no Python accepts them."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    path = pkg / "m.py"
    found = [f for f in lint_source(src, str(path)) if f.code == "JS001"]
    if sys.version_info[:2] >= (3, 12):
        assert _compiles(src) and found == []
        return
    try:
        compile(src, "m.py", "exec")
    except SyntaxError as e:
        assert not e.msg.startswith("f-string"), e.msg  # the case the f-string message alone did not cover
    else:
        raise AssertionError("compiles on this Python")
    assert [(f.severity, f.confidence) for f in found] == [("info", "likely")], found
    for broken in ('import jax\nx = "a {b\n', 'import jax\nx = "a" \\ "b"\n', 'import jax\nprint(f"{x}"\n'):
        assert not _compiles(broken)
        assert [(f.code, f.severity) for f in lint_source(broken, str(path))] == [("JS001", "error")], broken
