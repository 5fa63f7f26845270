"""Fast child iteration over ``ast`` trees.

``ast.iter_child_nodes`` and ``ast.walk`` are generic generators and cost more than the
parse itself on large files; the linter's walks use these precomputed per-type field
tables instead (skipping fields that never hold nodes we look at: ``ctx``, operators,
identifiers), which keeps lint within a small factor of ``ast.parse``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_NON_CHILD = frozenset({"ctx", "op", "ops", "type_comment", "id", "arg", "attr", "name", "kind", "conversion",
                        "is_async", "level", "module", "names", "n", "s", "lineno", "col_offset", "end_lineno",
                        "end_col_offset", "type_ignores"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(t: type) -> tuple[str, ...]:
    f = _FIELDS.get(t)
    if f is None:
        f = _FIELDS[t] = tuple(n for n in t._fields if n not in _NON_CHILD)  # type: ignore[attr-defined]
    return f


def children(node: ast.AST) -> list[ast.AST]:
    """Direct child nodes of ``node`` (expressions, statements, arguments, ...)."""
    out: list[ast.AST] = []
    t = type(node)
    fields = _FIELDS.get(t) or child_fields(t)
    for name in fields:
        v = getattr(node, name, None)
        if v is None:
            continue
        if type(v) is list:
            for x in v:
                if isinstance(x, ast.AST):
                    out.append(x)
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (including it), like ``ast.walk`` but faster."""
    stack = [node]
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        yield n
        extend(children(n))
