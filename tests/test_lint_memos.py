"""Per-file tables of the lint analyses are keyed by the function that owns them (``Context.memo`` /
``Context.table``), never by a string two modules could both choose: ``_scan.jit_lines`` (lines whose text
mentions jit/pmap) and ``wrappers.jits_in`` (lines of resolved compiling calls) once shared the key
``"_jit_lines"``, and whichever ran first answered for both."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jitscope.lint import wrappers
from jitscope.lint.context import Context
from jitscope.lint.rules import _scan

SRC = '''
import jax

def noted(x):
    y = x + 1  # jit would help here one day (a comment: no compiling call)
    return y

def compiled(x):
    return jax.jit(lambda v: v * 2)(x)
'''


def _ctx() -> tuple[Context, dict[str, ast.AST]]:
    tree = ast.parse(SRC)
    ctx = Context(tree, SRC, "mod.py", set())
    return ctx, {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}


def test_text_mentions_and_compiling_calls_are_separate_tables_in_either_order():
    for first in ("text", "calls"):
        ctx, fns = _ctx()
        if first == "text":
            assert _scan.mentions_jit(ctx, fns["noted"])
        assert not wrappers.jits_in(ctx, fns["noted"])  # a comment is not a compiling call
        assert wrappers.jits_in(ctx, fns["compiled"])
        assert _scan.mentions_jit(ctx, fns["noted"])  # ... yet the text mentions jit
        assert _scan.mentions_jit(ctx, fns["compiled"])


def test_memo_computes_once_per_file_and_tables_are_per_owner():
    ctx, _ = _ctx()
    calls = []

    def compute(c):
        calls.append(c)
        return {"n": len(calls)}

    assert ctx.memo(compute) is ctx.memo(compute) and len(calls) == 1
    assert ctx.table(compute) is not ctx.memo(compute)  # a table and a memo of one owner never meet
    assert ctx.table("a") is ctx.table("a") and ctx.table("a") is not ctx.table("b")
    assert _ctx()[0].memo(compute) is not ctx.memo(compute)  # per file


def test_no_analysis_stashes_state_in_a_context_or_frame_dict_by_name():
    root = Path(__file__).resolve().parent.parent / "src" / "jitscope" / "lint"
    bad = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py")
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if re.search(r"\b(ctx|frame|ctx\.frame)\.__dict__", line)]
    assert not bad, bad
