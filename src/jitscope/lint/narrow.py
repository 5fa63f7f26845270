"""Names a path makes certainly not ``None`` at a call site, for the closures the call traces there.

``lax.cond``/``scan``/``while_loop`` trace their bodies during the call itself, so a body's free variable
holds the value it has at the call. After ``nbrs = neighbors; if nbrs is None: return ...`` (or inside
``if neighbors is not None:``), ``neighbors`` is not ``None`` there, and a body's ``if neighbors is None:``
branch never runs traced (it is the function's eager path). Pure AST work, no JAX.
"""

from __future__ import annotations

import ast

from .astutil import ast_walk, iter_child_nodes

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_EXITS = (ast.Return, ast.Raise)


def not_none_at(fn: ast.AST, site: ast.AST) -> frozenset[str]:
    """Names of ``fn``'s own scope that are not ``None`` on every path reaching ``site`` (a node in ``fn``)."""
    line = getattr(site, "lineno", 0)
    stores = _stores(fn)
    facts: dict[str, int] = {}  # name -> line from which it is known not None
    block: list[ast.stmt] | None = getattr(fn, "body", None)
    while block:
        inner = None
        for st in block:
            if st.lineno <= line <= (st.end_lineno or st.lineno):
                inner = _descend(st, line, facts)
                break
            for name in _exits_when_none(st):
                facts.setdefault(name, st.end_lineno or st.lineno)
        block = inner
    out = {n for n, since in facts.items() if not any(since < s < line for s in stores.get(n, ()))}
    # `nbrs = neighbors` before the guard on `nbrs`: `neighbors` is the same object, while neither is rebound
    for st in ast_walk(fn):
        if type(st) is ast.Assign and len(st.targets) == 1 and type(st.targets[0]) is ast.Name \
                and type(st.value) is ast.Name and st.targets[0].id in facts and st.lineno < facts[st.targets[0].id]:
            alias, source, since = st.targets[0].id, st.value.id, facts[st.targets[0].id]
            if not any(st.lineno < s <= since for s in stores.get(alias, ()) if s != st.lineno) \
                    and not any(st.lineno <= s < line for s in stores.get(source, ())):
                out.add(source)
    return frozenset(out)


def _descend(st: ast.stmt, line: int, facts: dict[str, int]) -> list[ast.stmt] | None:
    """The statement list of ``st`` that holds ``line``, noting what an enclosing ``if`` test proves there."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(st, field, None)
        if type(block) is list and block and block[0].lineno <= line <= (block[-1].end_lineno or block[-1].lineno):
            if type(st) is ast.If:
                names = _none_test(st.test)
                if names is not None and names[1] == (field == "orelse"):  # `is None` in orelse, `is not None` in body
                    for n in names[0]:
                        facts.setdefault(n, st.lineno)
            return block
    for h in getattr(st, "handlers", ()) or ():
        if h.body and h.body[0].lineno <= line <= (h.body[-1].end_lineno or h.body[-1].lineno):
            return h.body
    return None


def _exits_when_none(st: ast.stmt) -> list[str]:
    """``if x is None: return ...`` (or ``raise``) and ``assert x is not None``: x is not None after it."""
    if type(st) is ast.Assert:
        names = _none_test(st.test)
        return names[0] if names is not None and not names[1] and len(names[0]) == 1 else []
    if type(st) is not ast.If or st.orelse or not st.body or not isinstance(st.body[-1], _EXITS):
        return []
    names = _none_test(st.test)
    return names[0] if names is not None and names[1] else []


def _none_test(test: ast.AST) -> tuple[list[str], bool] | None:
    """([x], True) for ``x is None`` (``x is None or y is None``: both), ([x], False) for ``x is not None``."""
    if type(test) is ast.BoolOp and type(test.op) is ast.Or:
        parts = [_none_test(v) for v in test.values]
        if all(p is not None and p[1] for p in parts):
            return [n for p in parts for n in p[0]], True  # type: ignore[index]
        return None
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.left) is not ast.Name:
        return None
    right = test.comparators[0]
    if type(right) is not ast.Constant or right.value is not None:
        return None
    if type(test.ops[0]) is ast.Is:
        return [test.left.id], True
    if type(test.ops[0]) is ast.IsNot:
        return [test.left.id], False
    return None


def _stores(fn: ast.AST) -> dict[str, list[int]]:
    """Lines binding each name in ``fn``'s own scope (nested functions and classes bind their own)."""
    out: dict[str, list[int]] = {}
    stack = list(iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        if isinstance(n, _SCOPES):
            if not isinstance(n, ast.Lambda):
                out.setdefault(n.name, []).append(n.lineno)
            continue
        if type(n) is ast.Name and type(n.ctx) is not ast.Load:
            out.setdefault(n.id, []).append(n.lineno)
        stack.extend(iter_child_nodes(n))
    return out


def handle_not_none(tree: ast.AST, handle: str, params: list[str]) -> frozenset[str]:
    """``_h = jax.jit(f)`` at module level (a private name: every use is in this module): the parameters of
    ``f`` that every call through ``_h`` passes a value other than ``None``. A use is a call ``_h(...)``, or a
    branch of ``k = f if x is None else _h`` (that branch runs only where ``x`` is not None) bound once to a
    local ``k`` that is only called. Any other use gives nothing."""
    parents = {c: n for n in ast_walk(tree) for c in iter_child_nodes(n)}
    sites: list[tuple[ast.Call, set[str], int]] = []
    for n in ast_walk(tree):
        if type(n) is not ast.Name or n.id != handle or type(n.ctx) is not ast.Load:
            continue
        p = parents.get(n)
        if type(p) is ast.Call and p.func is n:
            sites.append((p, set(), 0))
            continue
        if type(p) is not ast.IfExp or n is p.test:
            return frozenset()
        test = _none_test(p.test)
        extra = set(test[0]) if test is not None and (n is p.orelse) == test[1] else set()
        a = parents.get(p)
        fn = _enclosing(parents, p)
        if type(a) is not ast.Assign or len(a.targets) != 1 or type(a.targets[0]) is not ast.Name or fn is None:
            return frozenset()
        local = a.targets[0].id
        if _stores(fn).get(local, []) != [a.lineno]:
            return frozenset()  # bound again: which function a call runs is not this branch
        for m in ast_walk(fn):
            if type(m) is ast.Name and m.id == local and type(m.ctx) is ast.Load:
                q = parents.get(m)
                if type(q) is not ast.Call or q.func is not m:
                    return frozenset()  # handed on: called elsewhere with anything
                sites.append((q, extra, a.lineno))
    out: set[str] | None = None
    for call, extra, since in sites:
        fn = _enclosing(parents, call)
        nn = set(not_none_at(fn, call)) if fn is not None else set()
        if extra and fn is not None:  # the branch's test holds while its names are not bound again
            stores = _stores(fn)
            nn |= {x for x in extra if not any(since < s <= call.lineno for s in stores.get(x, ()))}
        passed = set()
        for i, arg in enumerate(call.args):
            if type(arg) is ast.Starred:
                return frozenset()
            if i < len(params) and _not_none(arg, nn):
                passed.add(params[i])
        for k in call.keywords:
            if k.arg is None:
                return frozenset()
            if _not_none(k.value, nn):
                passed.add(k.arg)
        out = passed if out is None else out & passed
    return frozenset(out or ())


def _not_none(node: ast.AST, names: set[str]) -> bool:
    if type(node) is ast.Constant:
        return node.value is not None
    if type(node) is ast.Name:
        return node.id in names
    return isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Lambda, ast.ListComp, ast.DictComp))


def _enclosing(parents: dict, node: ast.AST) -> ast.AST | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None
