"""Where an observed cond/switch branch dtype mismatch comes from: the branch output that is a Python scalar.

JAX refuses a ``lax.cond``/``lax.switch`` whose branches return different types and says which output differs:
``The output of true_fun at path [0] has type int32[] but the corresponding output of false_fun has type
float32[]`` (JAX 0.5 and later), or, older, lists every output with ``DIFFERENT ShapedArray(int64[],
weak_type=True) vs. ShapedArray(int32[])``, a weakly typed side being a Python scalar. The usual cause is a
branch returning a Python number (``0``, ``-1.0``) where the other returns an array; the fix is where that branch
computes it (``jnp.zeros_like(...)``, ``jnp.int32(0)``), not the call. The run's event (JS305, the differing
outputs in its cause: ``analyze.evidence_events._outputs``) is at the call; ``origin_line`` finds, in the source,
the branch functions the call was given (a ``def`` in the calling function or the module, or a ``lambda``;
``switch``: a list literal of them), the element of each returned tuple at that output's index, and the line
that computes it (the element itself, or the last plain assignment of the name returned). A side JAX calls weak
is taken whatever computes it; without that word, only a side computed by a number literal is. 0 when any step
is not plain (a nested pytree output, a branch not defined here, no such side).
"""

from __future__ import annotations

import ast
import re

# "output 0 of branches 0,1: int64[] weak vs. int32[]" (analyze.evidence_events writes the cause this way)
_OUTPUT = re.compile(r"output (\d+) of branches (\d+),(\d+): (\w+\[[^\]]*\])( weak)? vs\. (\w+\[[^\]]*\])( weak)?")
_NUMBER = (int, float, complex)


def differing(cause: str) -> list[tuple[int, list[int], bool]]:
    """(output index, the branches that may hold the Python scalar, JAX said weak) of each differing output."""
    out = []
    for m in _OUTPUT.finditer(cause):
        a, b = int(m.group(2)), int(m.group(3))
        wa, wb = bool(m.group(5)), bool(m.group(7))
        if wa != wb:
            out.append((int(m.group(1)), [a if wa else b], True))
        elif not wa:
            out.append((int(m.group(1)), [a, b], False))
    return out


def _enclosing(tree: ast.AST, line: int) -> list[ast.AST]:
    """The module and the defs holding ``line``, innermost last."""
    chain: list[ast.AST] = [tree]
    node = tree
    while True:
        for child in ast.iter_child_nodes(node):
            if type(child) in (ast.FunctionDef, ast.AsyncFunctionDef) and child.lineno <= line <= (child.end_lineno or 0):
                chain.append(child)
                node = child
                break
        else:
            return chain


def _branch(arg: ast.AST, scopes: list[ast.AST]) -> ast.AST | None:
    if type(arg) is ast.Lambda:
        return arg
    if type(arg) is not ast.Name:
        return None
    for scope in reversed(scopes):
        for stmt in getattr(scope, "body", ()):
            if type(stmt) in (ast.FunctionDef, ast.AsyncFunctionDef) and stmt.name == arg.id:
                return stmt
    return None


def _literal(node: ast.AST) -> bool:
    if type(node) is ast.UnaryOp:
        node = node.operand  # type: ignore[attr-defined]
    return type(node) is ast.Constant and type(node.value) in _NUMBER  # type: ignore[attr-defined]


def _element_line(fn: ast.AST, index: int, weak: bool) -> int:
    if type(fn) is ast.Lambda:
        returned = [fn.body]  # type: ignore[attr-defined]
        body: list[ast.stmt] = []
    else:
        body = fn.body  # type: ignore[attr-defined]
        returned = [s.value for s in body if type(s) is ast.Return and s.value is not None]
    if len(returned) != 1:
        return 0
    value = returned[0]
    if type(value) is ast.Tuple:
        if index >= len(value.elts) or any(type(e) is ast.Starred for e in value.elts):
            return 0
        value = value.elts[index]
    elif index != 0:
        return 0
    if type(value) is ast.Name:
        assigned = [s for s in body if type(s) is ast.Assign and len(s.targets) == 1
                    and type(s.targets[0]) is ast.Name and s.targets[0].id == value.id]  # type: ignore[attr-defined]
        if not assigned:
            return 0
        value = assigned[-1].value
        return assigned[-1].lineno if weak or _literal(value) else 0
    return value.lineno if weak or _literal(value) else 0


def _branches(call: ast.Call, scopes: list[ast.AST]) -> list[ast.AST | None]:
    name = getattr(call.func, "attr", None) or getattr(call.func, "id", None)
    if name == "cond" and len(call.args) >= 3:
        return [_branch(a, scopes) for a in call.args[1:3]]
    if name == "switch" and len(call.args) >= 2 and type(call.args[1]) in (ast.List, ast.Tuple):
        return [_branch(a, scopes) for a in call.args[1].elts]  # type: ignore[attr-defined]
    return []


def origin_line(tree: ast.AST | None, line: int, cause: str) -> int:
    """The line where a branch of the ``lax.cond``/``lax.switch`` call at ``line`` computes the Python scalar whose
    type differs from the other branch's output, or 0."""
    outputs = differing(cause)
    if tree is None or not outputs:
        return 0
    scopes = _enclosing(tree, line)
    calls = [n for n in ast.walk(scopes[-1]) if type(n) is ast.Call and n.lineno <= line <= (n.end_lineno or n.lineno)
             and _branches(n, scopes)]
    if len(calls) != 1:
        return 0
    branches = _branches(calls[0], scopes)
    found = []
    for index, sides, weak in outputs:
        for side in sides:
            fn = branches[side] if side < len(branches) else None
            if fn is not None:
                found.append(_element_line(fn, index, weak))
    found = [ln for ln in found if ln]
    return min(found) if found else 0
