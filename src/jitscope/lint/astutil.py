"""Fast child iteration over ``ast`` trees.

``ast.iter_child_nodes`` and ``ast.walk`` are generic generators and cost more than the
parse itself on large files; the linter's walks use these precomputed per-type field
tables instead (skipping fields that never hold nodes we look at: ``ctx``, operators,
identifiers), which keeps lint within a small factor of ``ast.parse``.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

from ._astchildren import FUNCTIONS as _AHEAD

_NON_CHILD = frozenset({"ctx", "op", "ops", "type_comment", "id", "arg", "attr", "name", "kind", "conversion",
                        "is_async", "level", "module", "names", "n", "s", "lineno", "col_offset", "end_lineno",
                        "end_col_offset", "type_ignores"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(t: type) -> tuple[str, ...]:
    f = _FIELDS.get(t)
    if f is None:
        f = _FIELDS[t] = tuple(n for n in t._fields if n not in _NON_CHILD)  # type: ignore[attr-defined]
    return f


# List fields that may hold something other than a node: ``None`` (``Dict.keys`` for ``**d``,
# ``arguments.kw_defaults``) or identifiers. Every other list field holds only nodes.
_MIXED_LISTS = frozenset({"keys", "kw_defaults", "kwd_attrs", "names"})
_CHILDREN: dict[type, object] = {}


def _children_function(t: type) -> object:
    """A function returning the child nodes of a ``t`` node, generated once per node type.

    Straight-line attribute reads beat a loop over the field names with ``getattr`` by about a
    quarter, and both lint walks (the module pre-pass and the rule walk) call this for every node.
    """
    fn = _CHILDREN[t] = _generated(child_fields(t))
    return fn


def _source(fields: tuple[str, ...], name: str = "children") -> str:
    """The source of a function ``name(node)`` returning the nodes held by ``fields`` of a node, in field
    order (lists flattened). A pure function of ``fields``: lint/_astchildren.py holds it compiled ahead."""
    lines = [f"def {name}(node):", "    out = []"]
    for f in fields:
        lines += [f"    v = node.{f}" if f.isidentifier() else f"    v = getattr(node, {f!r})",
                  "    if v is not None:",
                  "        if type(v) is list:",
                  "            out += [x for x in v if isinstance(x, AST)]" if f in _MIXED_LISTS
                  else "            out += v",
                  "        elif isinstance(v, AST):",
                  "            out.append(v)"]
    lines.append("    return out")
    return "\n".join(lines)


def _generated(fields: tuple[str, ...]) -> object:
    """The function of ``_source(fields)``: compiled ahead (lint/_astchildren.py, the fields of every node
    type of the Pythons it lists) or, for a node type it lacks (a newer Python), compiled now. Compiling
    one costs ~90 us, and a one-file lint asks for ~30 of them (~3 ms, 5% of a small file's lint)."""
    fn = _AHEAD.get(fields)
    if fn is not None:
        return fn
    namespace: dict[str, object] = {"AST": ast.AST}
    exec(_source(fields), namespace)  # noqa: S102 - code built from ast's own field names above
    return namespace["children"]


def children(node: ast.AST) -> list[ast.AST]:
    """Direct child nodes of ``node`` (expressions, statements, arguments, ...)."""
    t = type(node)
    fn = _CHILDREN.get(t) or _children_function(t)
    try:
        return fn(node)  # type: ignore[operator]
    except AttributeError:  # a node built by hand without every field (never from ast.parse)
        return _children_slow(node)


def _children_slow(node: ast.AST) -> list[ast.AST]:
    out: list[ast.AST] = []
    for name in child_fields(type(node)):
        v = getattr(node, name, None)
        if v is None:
            continue
        if type(v) is list:
            out.extend(x for x in v if isinstance(x, ast.AST))
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


def walk_in_order(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes ``ast.walk`` yields, in its order (breadth first), less the leaves it yields that carry
    no information of their own (contexts ``Load``/``Store``, operators, ``alias``, type-ignore
    comments): their absence changes no other node's place, as they have no children."""
    todo = deque([node])
    pop, extend = todo.popleft, todo.extend
    while todo:
        n = pop()
        kids = n.__dict__.get("_jc")  # children cached by the module pre-pass (lint/scope.py)
        extend(kids if kids is not None else children(n))
        yield n


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (including it), like ``ast.walk`` but faster."""
    stack = [node]
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        yield n
        extend(children(n))


_ALL_CHILDREN: dict[type, object] = {}
# Fields that hold identifiers, numbers or flags in every tree ``ast.parse`` makes, never a node. Not ``name``:
# a string elsewhere, but ``TypeAlias.name`` (``type X = ...``, Python 3.12+) is a ``Name`` node.
_NEVER_A_NODE = frozenset({"id", "arg", "attr", "kind", "conversion", "is_async", "level", "module", "n", "s",
                           "type_comment", "lineno", "col_offset", "end_lineno", "end_col_offset"})


def _all_children_function(t: type) -> object:
    """A function returning what ``list(ast.iter_child_nodes(node))`` returns for a ``t`` node from
    ``ast.parse``, generated once per node type: ``ast.iter_child_nodes`` is two nested generators that test
    every field and every list item; this reads the fields by name, skips those that never hold a node and
    tests list items only in the lists that may hold something else (``_MIXED_LISTS``)."""
    fn = _ALL_CHILDREN[t] = _generated(tuple(n for n in t._fields if n not in _NEVER_A_NODE))  # type: ignore[attr-defined]
    return fn


def iter_child_nodes(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))`` for a tree from ``ast.parse``: the same nodes in the same order
    (contexts, operators and aliases included, unlike ``children``), faster."""
    fn = _ALL_CHILDREN.get(type(node)) or _all_children_function(type(node))
    try:
        return fn(node)  # type: ignore[operator]
    except AttributeError:  # a node built by hand without every field: ast skips the missing ones
        return list(ast.iter_child_nodes(node))


def ast_walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)``: the same nodes in the same order (breadth first), faster."""
    todo = deque([node])
    pop, extend = todo.popleft, todo.extend
    while todo:
        n = pop()
        extend(iter_child_nodes(n))
        yield n


_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def own_nodes(*roots: ast.AST) -> Iterator[ast.AST]:
    """``roots`` and their nodes in source order, not entering nested functions, lambdas or classes."""
    stack = list(reversed(roots))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _NESTED_SCOPES):
            continue
        stack.extend(reversed(iter_child_nodes(n)))


# The ahead-compiled child functions (lint/_astchildren.py): generated from ``_source``, never edited by hand.
AHEAD_PATH = __file__.rsplit("astutil.py", 1)[0] + "_astchildren.py"


def node_field_sets() -> set[tuple[str, ...]]:
    """The field tuples ``children`` and ``iter_child_nodes`` ask ``_generated`` for, over every node type of
    this Python's ``ast``."""
    types = [c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST)]
    return {child_fields(t) for t in types} | {
        tuple(n for n in t._fields if n not in _NEVER_A_NODE) for t in types}  # type: ignore[attr-defined]


def ahead_source(field_sets: set[tuple[str, ...]], pythons: set[tuple[int, int]]) -> str:
    """The text of lint/_astchildren.py for ``field_sets`` (the node types of ``pythons``)."""
    keys = sorted(field_sets)
    head = ['"""GENERATED from lint/astutil.py (`_source`): do not edit. The child functions of astutil\'s walks',
            "compiled ahead, one per field tuple of the node types of the Pythons in PYTHONS: a lint loads them",
            "with this module's bytecode instead of compiling each at its first node (~90 us each). Regenerate",
            '(adding the running Python): python -c "from jitscope.lint import astutil; astutil.write_ahead()"."""',
            "# ruff: noqa",
            "from ast import AST", "",
            f"PYTHONS = {tuple(sorted(pythons))!r}", ""]
    body = [_source(f, f"_c{i}") + "\n\n" for i, f in enumerate(keys)]
    table = ["FUNCTIONS = {"] + [f"    {f!r}: _c{i}," for i, f in enumerate(keys)] + ["}", ""]
    return "\n".join(head) + "\n\n" + "\n".join(body) + "\n".join(table)


def write_ahead() -> None:
    """Rewrite lint/_astchildren.py with this Python's node types added to those it holds."""
    import sys

    from . import _astchildren

    pythons = set(_astchildren.PYTHONS) | {sys.version_info[:2]}
    with open(AHEAD_PATH, "w", encoding="utf-8") as fh:
        fh.write(ahead_source(set(_astchildren.FUNCTIONS) | node_field_sets(), pythons))
