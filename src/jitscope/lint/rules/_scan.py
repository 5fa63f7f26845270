"""Cheap scans for rules that analyse whole function bodies.

A rule that walks every node of every function body again costs as much as the main walk.
Two cheaper tools: most bodies never mention ``jit``, so a regex over the file (once per file,
in C) says which line ranges can matter and a bisect answers per function; and what a rule
needs about bindings is usually at statement level, so ``own_statements`` lists a body's
statements (with their enclosing loops) without descending into expressions.
"""

from __future__ import annotations

import ast
import bisect
import re

from ..context import Context

_JIT = re.compile(r"jit|pmap")


def jit_lines(ctx: Context) -> list[int]:
    """Sorted numbers of the lines that mention ``jit`` or ``pmap`` (cached per file)."""
    return ctx.memo(_mentions)


def _mentions(ctx: Context) -> list[int]:
    starts = ctx.source.starts
    return sorted({bisect.bisect_right(starts, m.start()) for m in _JIT.finditer(ctx.text)})


def mentions_jit(ctx: Context, node: ast.AST) -> bool:
    """Does the body of ``node`` (a function or the module; its lines, not its decorators or
    signature) mention ``jit`` or ``pmap``?"""
    lines = jit_lines(ctx)
    body = getattr(node, "body", None)
    first = body[0] if isinstance(body, list) and body else node
    start = getattr(first, "lineno", 1)
    end = getattr(node, "end_lineno", None) or start
    k = bisect.bisect_left(lines, start)
    return k < len(lines) and lines[k] <= end


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
Stmts = list[tuple[ast.AST, tuple[ast.AST, ...]]]


def own_statements(scope: ast.AST) -> Stmts:
    """Every statement of ``scope`` (a function or module; nested functions' and classes' bodies
    aside) with the loops around it, in source order."""
    out: Stmts = []
    stack: Stmts = [(st, ()) for st in reversed(scope.body)]  # type: ignore[attr-defined]
    while stack:
        st, loops = stack.pop()
        out.append((st, loops))
        if isinstance(st, SCOPES):
            continue
        inner = loops + (st,) if isinstance(st, LOOPS) else loops
        for name in BLOCKS:
            for child in reversed(getattr(st, name, ())):
                stack.append((child, inner if name == "body" else loops))  # a loop's `else` runs once
    return out


def bound_names(target: ast.AST) -> list[ast.Name]:
    """Names an assignment target binds (``a``, ``a, (b, *c)``), not those it only reads (``a[i]``, ``a.x``)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in bound_names(e)]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    return []


Binding = tuple[ast.AST, ast.AST | None, bool, tuple[ast.AST, ...]]


def statement_bindings(stmts: Stmts) -> dict[str, list[Binding]]:
    """Name -> bindings at statement level (``=``, ``+=``, annotated assignment, ``for``/``with`` targets,
    defs, classes), each (the bound name node or def, the right-hand side of an ``=`` else None,
    whether the name is the whole target (``name = value``), the loops around it)."""
    out: dict[str, list[Binding]] = {}
    for st, loops in stmts:
        value: ast.AST | None = None
        if isinstance(st, ast.Assign):
            targets, value = st.targets, st.value
        elif isinstance(st, ast.AugAssign):
            targets = [st.target]
        elif isinstance(st, ast.AnnAssign):
            targets = [st.target] if st.value is not None else []
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            targets, loops = [st.target], loops + (st,)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in st.items if i.optional_vars is not None]
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(st.name, []).append((st, None, False, loops))
            continue
        else:
            continue
        for t in targets:
            for name in bound_names(t):
                out.setdefault(name.id, []).append((name, value, t is name, loops))
    return out


def scope_bindings(ctx: Context, scope: ast.AST | None) -> dict:
    """``statement_bindings(own_statements(scope))``, once per scope and file ({} for no scope)."""
    cache = ctx.table(scope_bindings)
    got = cache.get(scope)
    if got is None:
        got = cache[scope] = statement_bindings(own_statements(scope)) if scope is not None else {}
    return got
