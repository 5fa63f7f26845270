"""The walk's shortcuts never change what lint finds.

The visitor skips rules whose ``calls`` patterns (for calls) or ``names`` sets (for names) cannot
match, and computes children with generated per-type functions. Each shortcut is checked here
against the slow path on every fixture and on real code (this package and the installed JAX).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from jitscope.lint import astutil
from jitscope.lint.engine import lint_text
from jitscope.lint.registry import all_rules
from jitscope.lint.rule import Rule

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _corpus() -> list[Path]:
    files = sorted((HERE / "lint_fixtures").glob("JS*.py"))
    files += sorted((ROOT / "src" / "jitscope").rglob("*.py"))
    import jax

    jax_src = Path(jax.__file__).parent / "_src"
    files += sorted(jax_src.glob("*.py"))[:60]  # real JAX code: control flow, jit, vmap, closures
    return [f for f in files if not f.name.startswith(("JS001", "JS002", "JS003"))]


def _findings(text: str, name: str) -> list[tuple]:
    found, _ = lint_text(text, name, set(all_rules()), assume_traced=name.endswith(".stress"))
    return [(f.code, f.location.line, f.location.column, f.message) for f in found]


def test_call_and_name_filters_change_no_finding(monkeypatch):
    corpus = _corpus()
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in corpus]
    # assume_traced drives every rule over every function: the filters see far more calls and names
    texts += [(n + ".stress", t) for n, t in texts[:40]]
    fast = {n: _findings(t, n) for n, t in texts}
    assert sum(map(len, fast.values())) > 100  # the comparison is over real findings

    for cls in all_rules().values():
        monkeypatch.setattr(cls, "calls", None)
    monkeypatch.setattr(Rule, "names", lambda self, info: None)
    for cls in all_rules().values():
        if "names" in vars(cls):
            monkeypatch.setattr(cls, "names", lambda self, info: None)
    slow = {n: _findings(t, n) for n, t in texts}
    assert fast == slow


@pytest.mark.parametrize("source", [
    "match p:\n    case {'a': 1, **rest}: pass\n    case Point(x=0, y=yy) | [1, *_]: pass\n",
    "def f(a, /, b=1, *c, d, e=2, **g):\n    global q\n    nonlocal_ = {**a, 'k': b}\n    return f'{a!r:>{b}}'\n",
    "async def f():\n    async with a as b, c:\n        async for i in b:\n            await i\n    try:\n        pass\n"
    "    except* ValueError as e:\n        raise\n",
    "lambda *, k=None: [x for x in y if x async for z in w]\n",
])
def test_generated_children_match_the_field_walk(source):
    for node in ast.walk(ast.parse(source)):
        assert astutil.children(node) == astutil._children_slow(node), ast.dump(node)[:80]


def test_generated_children_on_real_code():
    n = 0
    for path in _corpus()[:200]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            assert astutil.children(node) == astutil._children_slow(node), (path, ast.dump(node)[:80])
            n += 1
    assert n > 10_000


def _same_nodes(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("source", [
    "match p:\n    case {'a': 1, **rest}: pass\n    case Point(x=0, y=yy) | [1, *_]: pass\n",
    "def f(a, /, b=1, *c, d, e=2, **g):\n    global q\n    nonlocal_ = {**a, 'k': b}\n    return f'{a!r:>{b}}'\n",
    "from . import (a as b, c)\nimport d.e as f\nx = {**y, 1: 2}\nz = a < b <= c\n",
    "lambda *, k=None: [x for x in y if x async for z in w]\n",
])
def test_generated_iter_child_nodes_is_the_standard_librarys(source):
    # astutil.iter_child_nodes and astutil.ast_walk replace ast's generators where the same nodes are needed
    # (contexts, operators and aliases included, unlike astutil.children): identical nodes, identical order
    tree = ast.parse(source)
    for node in ast.walk(tree):
        assert _same_nodes(astutil.iter_child_nodes(node), list(ast.iter_child_nodes(node))), ast.dump(node)[:80]
    assert _same_nodes(list(astutil.ast_walk(tree)), list(ast.walk(tree)))
    bare = ast.Call(func=ast.Name(id="f", ctx=ast.Load()))  # built by hand without args/keywords: ast skips them
    assert _same_nodes(astutil.iter_child_nodes(bare), list(ast.iter_child_nodes(bare)))


def test_generated_iter_child_nodes_on_real_code():
    n = 0
    for path in _corpus()[:200]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert _same_nodes(list(astutil.ast_walk(tree)), list(ast.walk(tree))), path
        for node in ast.walk(tree):
            assert _same_nodes(astutil.iter_child_nodes(node), list(ast.iter_child_nodes(node))), path
            n += 1
    assert n > 10_000


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`type X = ...` (PEP 695) parses from Python 3.12")
def test_a_type_alias_name_is_a_child_node():
    # TypeAlias.name is a Name node (elsewhere `name` is a string): ast.iter_child_nodes gives it, and so must
    # astutil.iter_child_nodes (it was skipped as an identifier field)
    tree = ast.parse("type A[T] = list[T]\ndef f[T: int, *Ts, **P](x: T) -> T: return x\nclass C[T]: pass\n")
    for node in ast.walk(tree):
        assert astutil.iter_child_nodes(node) == list(ast.iter_child_nodes(node)), ast.dump(node)[:80]
    assert [type(n).__name__ for n in astutil.ast_walk(tree)] == [type(n).__name__ for n in ast.walk(tree)]
