"""Reaching definitions of a local name at a use: which of its bindings can still hold when the use runs.

Flow-insensitive rules read every binding of a name in the function, so ``shape = [1, 2]`` then
``shape = tuple(shape)`` then ``f(x, shape)`` looked like a list reaching ``f``. Python rebinding kills
the earlier value: a plain ``name = value`` statement in the same block before the use (on the
straight path to it) is on every path there, so only it and the bindings between it and the use reach.
Bindings inside a loop around the use may reach it again through the loop's back edge, unless such a
kill stands between the loop's start and the use. When no kill is found the answer is ``None``: every
binding of the function may reach (the flow-insensitive answer).

A guard narrows the path that skips its body: after ``if not isinstance(x, tuple): x = tuple(x)`` the name
holds the body's value or, where the guard was false, a ``tuple`` already; so the ``if`` kills the earlier
bindings as a plain assignment would, and the skipped path contributes ``tuple(...)`` (a value of that type).
A body that leaves the block (``return``/``raise``) contributes nothing on the path through it.
"""

from __future__ import annotations

import ast

from ..branches import exits
from ._scan import LOOPS, SCOPES, own_statements, statement_bindings

_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
Value = ast.AST | None


def reaching_values(fn: ast.AST, parents: list[ast.AST], use: ast.AST, name: str) -> list[Value] | None:
    """The right-hand sides (None: a binding whose value is unknown) of the bindings of ``name`` that reach
    ``use`` inside function ``fn`` (``parents``: the use's ancestors, outermost first), or None when a binding
    from before every block around the use (a parameter, an earlier conditional binding) may still reach."""
    try:
        chain = parents[parents.index(fn):] + [use]
    except ValueError:
        return None
    found: list[Value] = []
    for depth in range(len(chain) - 2, -1, -1):  # innermost block first
        holder, child = chain[depth], chain[depth + 1]
        if depth and isinstance(holder, SCOPES):
            return None  # the use is in a nested function: its own scope, not this walk's business
        block = _block_of(holder, child)
        if block is None:
            continue  # `child` is an expression of `holder` (the test of an `if`, a call's argument)
        index = next(i for i, s in enumerate(block) if s is child)
        for stmt in reversed(block[:index]):
            if _kills(stmt, name):
                found.append(stmt.value)  # type: ignore[attr-defined]
                return found
            both = _branches_kill(stmt, name)
            if both is not None:  # `if c: x = a` / `else: x = b`: every path through the `if` rebinds it
                return found + both
            narrowed = _guard_narrowed(stmt, name)
            if narrowed is not None:
                return found + narrowed
            found += _falling_bindings(stmt, name)
        if isinstance(holder, LOOPS) and block is holder.body:
            found += _bindings(holder, name)  # the loop's later iterations: its whole body may run before
        elif isinstance(holder, (*LOOPS, ast.Try, getattr(ast, "TryStar", ast.Try))) and block is not holder.body:
            for stmt in holder.body + getattr(holder, "handlers", []) + holder.orelse:  # type: ignore[attr-defined]
                found += _bindings(stmt, name)  # a loop's `else`, an `except`/`finally`: after some of the body
    return None


def _guard_narrowed(stmt: ast.AST, name: str) -> list[Value] | None:
    """What ``name`` may hold after ``if not isinstance(name, T): <body>`` that rebinds it whole (or leaves the
    block), with no ``else``: the body's values, and ``T()`` (an instance of T) from the path that skips it.
    None when ``stmt`` is no such guard."""
    if not isinstance(stmt, ast.If) or stmt.orelse:
        return None
    test = stmt.test
    if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call)):
        return None
    call = test.operand
    if not (isinstance(call.func, ast.Name) and call.func.id == "isinstance" and len(call.args) == 2
            and isinstance(call.args[0], ast.Name) and call.args[0].id == name):
        return None
    kind = call.args[1]
    skipped: Value = ast.Call(func=kind, args=[], keywords=[]) if isinstance(kind, (ast.Name, ast.Attribute)) else None
    body: list[Value] = []
    for stmt2 in reversed(stmt.body):
        if _kills(stmt2, name):
            return [*body, stmt2.value, skipped]  # type: ignore[attr-defined]
        if isinstance(stmt2, (ast.Return, ast.Raise)) and stmt2 is stmt.body[-1]:
            return [skipped]
        body += _bindings(stmt2, name)
    return None


def _branches_kill(stmt: ast.AST, name: str) -> list[Value] | None:
    """The values ``name`` may hold after an ``if`` each of whose branches that falls through rebinds it whole
    (at its top level, or by such an ``if``), from the last such rebinding on; None when a path keeps an earlier
    binding."""
    if not isinstance(stmt, ast.If):
        return None
    out: list[Value] = []
    falls = 0
    for block in (stmt.body, stmt.orelse):
        if exits(block):
            continue
        falls += 1
        for i in range(len(block) - 1, -1, -1):
            s = block[i]
            if _kills(s, name):
                got = [s.value]  # type: ignore[attr-defined]
            else:
                got = _branches_kill(s, name)
            if got is not None:
                out += got
                for later in block[i + 1:]:
                    out += _falling_bindings(later, name)
                break
        else:
            return None
    return out if falls else None


def _falling_bindings(stmt: ast.AST, name: str) -> list[Value]:
    """The bindings of ``name`` in ``stmt`` that can reach the statement after it: of an ``if``, only those of
    the branches that fall through (one that returns or raises ends its bindings with it: lint/branches.py)."""
    if isinstance(stmt, ast.If):
        return [v for block in (stmt.body, stmt.orelse) if not exits(block) for s in block
                for v in _falling_bindings(s, name)]
    return _bindings(stmt, name)


def _block_of(holder: ast.AST, child: ast.AST) -> list[ast.AST] | None:
    for field in _BLOCKS:
        block = getattr(holder, field, None)
        if isinstance(block, list) and any(s is child for s in block):
            return block
    return None


def _kills(stmt: ast.AST, name: str) -> bool:
    """Does ``stmt`` bind ``name`` whole, on every path through it (``name = value``, ``name: T = value``)?"""
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    return isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name) \
        and stmt.target.id == name


def _bindings(stmt: ast.AST, name: str) -> list[Value]:
    """The values ``name`` may be bound to somewhere inside ``stmt`` (None: unknown)."""
    holder = ast.Module(body=[stmt], type_ignores=[])
    entries = statement_bindings(own_statements(holder)).get(name, [])
    return [value if whole else None for _, value, whole, _ in entries]
