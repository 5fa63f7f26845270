"""How a module global changes after import: the writes made through ``global`` in functions.

JS502 reports a traced read of a global that some function reassigns, because jit freezes the value it
read while tracing. That claim needs a later value that differs from the one read. A global every function
writes only as a **run-once initialisation** never gets one: each write sits under a test that the global is
still unset (``if _TABLE is None: _TABLE = build()``, ``if not _CACHE: ...``), so the global goes from its
unset module value to one value and stays there (a lazily built memo or table). A trace that reads it after
the initialisation reads the value every later call would read; one that reads the unset value fails while
tracing (``x + None``) rather than silently computing with a stale number (docs/lint.md, "How a global
changes"; tests/test_lint_global_writes.py runs both shapes under real ``jax.jit``).

Computed once per file (``Context.memo``), from one walk of the module.
"""

from __future__ import annotations

import ast

from .astutil import own_nodes

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def initialised_once(ctx) -> frozenset[str]:  # ctx: lint.context.Context
    """The module globals that functions write only as a run-once initialisation (every write under
    ``if NAME is None:`` / ``if not NAME:`` of the global itself), and at least once."""
    return ctx.memo(_initialised_once)


def _initialised_once(ctx) -> frozenset[str]:
    once: set[str] = set()
    other: set[str] = set()
    for fn in ast.walk(ctx.tree):
        if not isinstance(fn, _DEFS):
            continue
        declared = {n for s in own_nodes(*fn.body) if isinstance(s, ast.Global) for n in s.names}
        if declared:
            _classify(fn.body, declared, frozenset(), once, other)
    return frozenset(once - other)


def _classify(body: list[ast.stmt], declared: set[str], unset: frozenset[str], once: set[str],
              other: set[str]) -> None:
    """Sort each write of a ``declared`` global in ``body`` into ``once`` (under a test that it is unset)
    or ``other``; ``unset`` holds the globals the enclosing ``if`` tests proved unset."""
    for stmt in body:
        if isinstance(stmt, (*_DEFS, ast.ClassDef)):
            continue  # its own `global` statements are its own
        if isinstance(stmt, ast.If):
            _stores(stmt.test, declared, other)
            _classify(stmt.body, declared, unset | (_unset_tested(stmt.test) & declared), once, other)
            _classify(stmt.orelse, declared, unset, once, other)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
            for field, inner in ast.iter_fields(stmt):
                if field in ("body", "orelse", "finalbody"):
                    _classify(inner, declared, unset, once, other)
                elif field == "handlers":
                    for h in inner:
                        _classify(h.body, declared, unset, once, other)
                elif isinstance(inner, ast.AST):  # a loop target, a with item, a test: never an initialisation
                    _stores(inner, declared, other)
                elif isinstance(inner, list):
                    for x in inner:
                        _stores(x, declared, other)
        elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            for t in stmt.targets:
                if t.id in declared:  # type: ignore[attr-defined]
                    (once if t.id in unset else other).add(t.id)  # type: ignore[attr-defined]
            _stores(stmt.value, declared, other)
        else:  # `X += 1`, `del X`, `X, Y = ...`, a walrus, a match: a change, not an initialisation
            _stores(stmt, declared, other)


def _stores(node: ast.AST, declared: set[str], other: set[str]) -> None:
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in declared:
            other.add(n.id)


def _unset_tested(test: ast.expr) -> set[str]:
    """The names ``test`` is true only while unset: ``X is None``, ``not X``, and every term of an ``and``
    (``X is None and enabled`` runs its body only while X is unset); an ``or`` proves nothing (``X is None or
    Y is None`` runs its body with X set)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        return {test.left.id}
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return {test.operand.id}
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return {n for v in test.values for n in _unset_tested(v)}
    return set()
