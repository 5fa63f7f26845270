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


def _assignment(body: list[ast.stmt], name: str) -> ast.Assign | None:
    """The last plain ``name = ...`` statement of ``body``, or None."""
    found = [s for s in body if type(s) is ast.Assign and len(s.targets) == 1
             and type(s.targets[0]) is ast.Name and s.targets[0].id == name]  # type: ignore[attr-defined]
    return found[-1] if found else None  # type: ignore[return-value]


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
        assigned = _assignment(body, value.id)  # type: ignore[attr-defined]
        if assigned is None:
            return 0
        value = assigned.value
        return assigned.lineno if weak or _literal(value) else 0
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


# An event about a function's jit options (a static argument that is not hashable, or hashed by identity or
# rebuilt so that each call compiles again; a weak type or a new function object in jit's cache key): the fix
# goes in the jit that wraps the function (its static_argnums/argnames, a hashable static) when a decorator
# applies it, else at the def
_JIT_OPTIONS = ("JS602", "JS208", "JS605", "JS210", "JS204")
# "carry c[1]: int32[] in vs. float32[] out" (analyze.evidence_events writes a loop carry's cause this way)
_CARRY = re.compile(r"carry ([A-Za-z_]\w*)((?:\[\d+\])*): ")


def _defined(tree: ast.AST, first: int) -> ast.AST | None:
    """The def whose code's first line (its first decorator's, else its own) is ``first``."""
    for node in ast.walk(tree):
        if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef):
            if min([node.lineno, *(d.lineno for d in node.decorator_list)]) == first:  # type: ignore[attr-defined]
                return node
    return None


def _jit_decorator(fn: ast.AST) -> int:
    for d in fn.decorator_list:  # type: ignore[attr-defined]
        if any(type(n) in (ast.Name, ast.Attribute) and getattr(n, "id", getattr(n, "attr", "")) in (
                "jit", "pjit", "filter_jit") for n in ast.walk(d)):
            return d.lineno
    return 0


def _carry_line(fn: ast.AST, cause: str) -> int:
    """The line where the loop body ``fn`` computes the output carry component JAX says differs in dtype from the
    input's (``carry c[1]``: ``c`` the body's first parameter, ``[1]`` the path): the element of the carry it
    returns (a scan body returns ``(carry, y)``; a while/fori body the carry), through one plain assignment of a
    returned name. 0 when a step is not plain."""
    m = _CARRY.search(cause)
    params = [p.arg for p in fn.args.posonlyargs + fn.args.args]  # type: ignore[attr-defined]
    if m is None or not params or m.group(1) != params[0]:
        return 0
    path = [int(i) for i in re.findall(r"\[(\d+)\]", m.group(2))]
    body = fn.body  # type: ignore[attr-defined]
    returned = [s.value for s in body if type(s) is ast.Return and s.value is not None]
    if len(returned) != 1:
        return 0
    value = returned[0]
    if type(value) is ast.Tuple and len(value.elts) == 2 and len(params) == 2:  # a scan body: (carry, y)
        value = value.elts[0]
    line = value.lineno
    for index in path:
        if type(value) is ast.Name:
            assigned = _assignment(body, value.id)  # type: ignore[attr-defined]
            if assigned is None:
                return 0
            value = assigned.value
        if type(value) is not ast.Tuple or index >= len(value.elts):
            return 0
        value, line = value.elts[index], value.elts[index].lineno
    if type(value) is ast.Name:
        assigned = _assignment(body, value.id)  # type: ignore[attr-defined]
        line = assigned.lineno if assigned is not None else line
    return line


def definition_line(tree: ast.AST | None, first: int, code: str, cause: str) -> int:
    """Where, in the function whose code starts at ``first`` (an event's ``defined_at``), the fix of an event of
    rule ``code`` goes: a loop carry whose dtype changed (JS305 with JAX's ``carry c[1]``), the body's line that
    computes that component; a jit option (JS602 unhashable static, JS208/JS605 a static compiled again, JS210,
    JS204), the jit decorator; else the ``def``. ``first`` when the def is not found."""
    fn = _defined(tree, first) if tree is not None else None
    if fn is None:
        return first
    if code == "JS305":
        return _carry_line(fn, cause) or fn.lineno  # type: ignore[attr-defined]
    if code in _JIT_OPTIONS:
        return _jit_decorator(fn) or fn.lineno  # type: ignore[attr-defined]
    return fn.lineno  # type: ignore[attr-defined]
