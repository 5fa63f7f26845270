"""The house stays one-way: no import goes up a layer, none closes a cycle (tests/import_graph.py).

No exceptions list: a new module must be given a layer in tests/import_graph.py and
docs/architecture.md, and an import that breaks the rules must be moved, not excused.
"""

from __future__ import annotations

import ast
import os

import import_graph as g
import pytest


def test_no_upward_import():
    bad = g.upward(g.edges())
    assert not bad, "imports that go up a layer:\n" + "\n".join(
        f"  {e.source}:{e.line} -> {e.target} (layer {g.layer_of(e.source)} -> {g.layer_of(e.target)})" for e in bad)


def test_no_cycle():
    cyc = g.cycles(g.edges())
    assert not cyc, "import cycles:\n" + "\n".join(f"  {' -> '.join(c)}" for c in cyc)


def test_every_module_has_a_layer():
    for module in g.modules():
        g.layer_of(module)  # raises for a module no layer names


def test_the_checker_sees_every_kind_of_import(tmp_path, monkeypatch):
    """Function-level, TYPE_CHECKING and relative imports are edges: a checker blind to them passes anything."""
    pkg = tmp_path / "jitscope"
    (pkg / "collect").mkdir(parents=True)
    (pkg / "analyze").mkdir()
    (pkg / "results").mkdir()
    for d in (pkg, pkg / "collect", pkg / "analyze", pkg / "results"):
        (d / "__init__.py").write_text("")
    (pkg / "model.py").write_text("")
    (pkg / "analyze" / "a.py").write_text("from ..model import x\n")
    (pkg / "results" / "r.py").write_text("from ..analyze import a\n")
    (pkg / "collect" / "c.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..results.r import R\n"
        "def f():\n    from jitscope.analyze.a import y\n    import jitscope.collect.d\n")
    (pkg / "collect" / "d.py").write_text("from . import c\n")
    monkeypatch.setattr(g, "SRC", tmp_path)
    edges = {(e.source, e.target) for e in g.edges()}
    assert ("jitscope.collect.c", "jitscope.results.r") in edges  # TYPE_CHECKING
    assert ("jitscope.collect.c", "jitscope.analyze.a") in edges  # function level
    assert ("jitscope.analyze.a", "jitscope.model") in edges  # relative, parent package
    up = {(e.source, e.target) for e in g.upward(g.edges())}
    assert up == {("jitscope.collect.c", "jitscope.results.r"), ("jitscope.collect.c", "jitscope.analyze.a")}
    assert g.cycles(g.edges()) == [["jitscope.collect.c", "jitscope.collect.d"]]


def test_architecture_doc_names_every_layer():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "architecture.md").read_text()
    tree = ast.parse(Path(g.__file__).read_text())
    layers = ast.get_docstring(tree) or ""
    for name in ("collect/", "analyze/", "lint/", "results/", "render/", "cli/", "_jaxcompat", "_format",
                 "_version", "_pycode", "targets", "gallery/"):
        assert name in layers and name in doc, name


@pytest.mark.parametrize("module", ["jitscope.collect.watch", "jitscope.analyze.watch_summary",
                                    "jitscope.collect.variants", "jitscope.lint.source"])
def test_known_tangles_stay_untangled(module):
    """The imports issue #8 removed, named: a regression here is the old design creeping back."""
    targets = {e.target for e in g.edges() if e.source == module}
    assert not any(t.startswith(("jitscope.results", "jitscope.render")) for t in targets), targets
    if module.startswith("jitscope.collect"):
        assert not any(t.startswith("jitscope.analyze") for t in targets), targets
    if module == "jitscope.lint.source":
        assert "jitscope.lint.registry" not in targets


def _private_jax_imports(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if isinstance(node, ast.ImportFrom) and node.module == "jax":
            names += [f"jax.{a.name}" for a in node.names]  # `from jax import _src`
        out += [(node.lineno, n) for n in names if n == "jax._src" or n.startswith("jax._src.")]
    return out


def test_only_the_compat_package_imports_private_jax():
    """Every import of ``jax._src`` is in the ``_jaxcompat`` package (feature-detected there, tested in
    tests/test_jaxcompat*.py), so a JAX release that moves an internal breaks one place."""
    from pathlib import Path

    src = Path(__file__).parent.parent / "src" / "jitscope"
    found = {}
    for path in sorted(src.rglob("*.py")):
        hits = _private_jax_imports(ast.parse(path.read_text(encoding="utf-8")))
        if hits:
            found[str(path.relative_to(src))] = hits
    assert found and all(f.startswith("_jaxcompat" + os.sep) for f in found), found


def test_the_private_import_check_sees_every_spelling():
    text = "import jax._src.core\nfrom jax._src import pjit\nfrom jax import _src\nimport jax\nfrom jax import numpy\n"
    assert [n for _, n in _private_jax_imports(ast.parse(text))] == ["jax._src.core", "jax._src", "jax._src"]


def test_importing_jitscope_does_not_import_jax():
    """``import jitscope`` (and the pytest plugin, the startup hook) must not import JAX: JITSCOPE=watch attaches
    when the program imports JAX, and a module of jitscope importing it first is a circular import there."""
    import subprocess
    import sys

    code = "import sys, jitscope, jitscope._watch, jitscope._autowatch; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr
