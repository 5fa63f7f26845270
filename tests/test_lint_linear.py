"""Lint's source slicing is linear: line offsets once per file, not a re-split per finding."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jitscope.lint import lint_source
from jitscope.lint.runner import MAX_SNIPPET, lint_file
from jitscope.lint.source import SourceIndex

FIXTURES = [p for p in sorted((Path(__file__).resolve().parent / "lint_fixtures").glob("JS*.py"))
            if not p.name.startswith(("JS001", "JS002", "JS003"))]
HEAD = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x):\n"


@pytest.mark.parametrize("text", [
    *(p.read_text(encoding="utf-8") for p in FIXTURES),
    "s = 'é\u4e2d😀' + f(a, 'ü')\r\nt = (\r\n  'ö', b)\rz = '😀' * 3\n",
    "x = ('" + "é" * 40_000 + "', y, '" + "😀" * 5 + "', z)\n",  # crosses the checkpoint step
])
def test_segments_match_ast(text):
    index = SourceIndex(text)
    for node in ast.walk(ast.parse(text)):
        if hasattr(node, "end_col_offset") and node.end_col_offset is not None:
            assert index.segment(node) == ast.get_source_segment(text, node), ast.dump(node)[:80]


def test_findings_never_resplit_the_file(monkeypatch):
    """ast.get_source_segment re-splits the whole text per call (the old quadratic path); lint must not use it."""
    def boom(*a, **k):
        raise AssertionError("whole-file split per finding")

    monkeypatch.setattr(ast, "get_source_segment", boom)
    monkeypatch.setattr(ast, "_splitlines_no_ff", boom)
    dense = HEAD + "".join(f"    y{i} = ('é', sum(x))\n" for i in range(300)) + "    return x\n"
    findings = lint_source(dense, "dense.py")
    assert [f.code for f in findings] == ["JS201"] * 300
    assert findings[-1].location.line == 306 and findings[-1].location.column == len("    y299 = ('é', ") + 1
    wide = HEAD + "    n = ['é', " + ", ".join("sum(x)" for _ in range(500)) + "]\n    return n\n"
    found = lint_source(wide, "wide.py")
    assert len(found) == 500 and found[-1].location.column == wide.splitlines()[6].rindex("sum(x)") + 1


def test_long_line_keeps_no_snippet(tmp_path):
    """A finding on a generated 1,000+ character line carries no copy of it (the report would grow as n x len)."""
    p = tmp_path / "wide.py"
    p.write_text(HEAD + "    n = [" + ", ".join(f"a{i}" for i in range(MAX_SNIPPET)) + ", sum(x)]\n"
                 "    return sum(x), n\n", encoding="utf-8")
    out = lint_file(str(p), frozenset({"JS201"}))
    assert [(f.code, f.location.line) for f in out.findings] == [("JS201", 7), ("JS201", 8)]
    assert "source" not in out.findings[0].details
    assert out.findings[1].details["source"] == "    return sum(x), n"


def test_many_fixes_apply_in_one_pass():
    from jitscope.lint.fixes import apply_fixes, fixes_for

    src = HEAD + "".join(f"    y{i} = sum(x)\n" for i in range(500)) + "    return x\n"
    findings = lint_source(src, "m.py")
    new, applied = apply_fixes(src, fixes_for(findings, ("safe", "unsafe")))
    assert applied == 500 and new.count("jnp.sum(x, axis=0)") == 500 and "= sum(" not in new
