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
HEAD = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x: jax.Array):\n"


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


@pytest.mark.parametrize("text", ["", "x", "x\n", "\n\n", "a\nb", "a\r\nb\rc\n", "a\x0cb\nc\u2028d\n", "é\n😀\n\n"])
def test_line_starts_are_where_python_starts_lines(text):
    import re

    from jitscope.lint.source import line_starts

    assert line_starts(text) == [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def test_a_linted_tree_is_freed_without_the_cyclic_collector(tmp_path):
    """A node holding a reference up the tree (an assignment to its enclosing def) made every function a
    reference cycle: the trees of a large run were freed only by the cyclic collector, which walked them
    all (an eighth of a serial lint of jax+flax+optax)."""
    import gc

    from jitscope.lint.registry import all_rules

    src = tmp_path / "m.py"
    src.write_text(HEAD + "    y = x + 1\n    return y\n\n\nclass C:\n    def g(self, a):\n        b = jax.jit(f)\n"
                   "        c = b(a)\n        return c\n\n\ndef h(z):\n    k = [z]\n    return k\n")
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        outcome = lint_file(str(src), frozenset(all_rules()))
        del outcome
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if isinstance(o, ast.AST)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


def test_each_call_is_resolved_to_its_jitted_target_once_per_walk(monkeypatch):
    """JS208, JS602, JS604 and JS605 each ask for the static arguments of every call: the answer is computed
    once per call and walk, not once per rule."""
    from jitscope.lint.rules import _static_args

    asked: list[ast.Call] = []
    real = _static_args.jitted_target
    monkeypatch.setattr(_static_args, "jitted_target", lambda ctx, call: asked.append(call) or real(ctx, call))
    src = ("import functools\nimport jax\n\n\n@functools.partial(jax.jit, static_argnums=1)\ndef f(x, n):\n"
           "    return x * n\n\n\ndef g(xs):\n    out = []\n    for i, x in enumerate(xs):\n"
           "        out.append(f(x, [i]))\n    return out\n")
    findings = lint_source(src, "m.py")
    assert {f.code for f in findings} >= {"JS602"}
    calls = sum(isinstance(n, ast.Call) for n in ast.walk(ast.parse(src)))
    assert len(asked) <= calls, (len(asked), calls)
