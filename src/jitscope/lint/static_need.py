"""Why a static parameter must stay static: its jitted def uses it where only a Python value works under jit.

JS208 reports a static argument that changes on every iteration of a loop (one compile per value). Its
usual fix is to trace the argument, which is no fix when the jitted def needs the Python value:

- a ``range`` bound or NumPy size (``values.HOST_SIZE_ARGS``), or an int parameter of jnp/lax (a length, an
  axis, a count: ``values.STATIC_INT_ARGS``): a tracer there raises TracerIntegerConversionError or
  ConcretizationTypeError;
- Python control flow on it: the test of an ``if``/``while``/conditional expression/``assert`` that compares
  it or takes its truth (``if m == 1:``, ``elif m % 2 == 0:``, ``while n:``): a tracer there raises
  TracerBoolConversionError. An identity or membership test (``if m is None:``) works on a tracer and is no
  such need.

One answer per def and parameter, found from the def alone, so lint asks it of a def in this module
(JS208 directly) and of a def in another linted module (through its jitted summary, ``wrappers_join``)
alike; tests/test_lint_static_need.py runs each use under real ``jax.jit`` with the argument traced.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..jaxmodel.values import HOST_SIZE_ARGS, STATIC_INT_ARGS

_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)
_NO_CONCRETE = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


def static_need(fn: ast.AST, param: str, resolve: Callable[[ast.AST], str | None]) -> tuple[str, int] | None:
    """(what ``fn`` needs ``param`` for, the line) when only a Python value works there under jit, else None."""
    found: list[tuple[int, str]] = []
    for n in ast.walk(fn):
        t = type(n)
        if t is ast.Call:
            q = resolve(n.func) or ""  # type: ignore[attr-defined]
            spec = HOST_SIZE_ARGS.get(q) or STATIC_INT_ARGS.get(q)
            if spec is None:
                continue
            args = [a for i, a in enumerate(n.args) if i in spec[0]] + [  # type: ignore[attr-defined]
                k.value for k in n.keywords if k.arg in spec[1]]  # type: ignore[attr-defined]
            for a in args:
                items = a.elts if type(a) in (ast.Tuple, ast.List) else [a]  # type: ignore[attr-defined]
                if any(type(m) is ast.Name and m.id == param for e in items for m in ast.walk(e)):
                    what = "a Python loop count" if q == "range" else f"a size or count `{ast.unparse(n.func)}` needs"
                    found.append((n.lineno, what))  # type: ignore[attr-defined]
        elif t in _TESTS and _truth_of(n.test, param):  # type: ignore[attr-defined]
            found.append((n.lineno, "tested by Python control flow"))  # type: ignore[attr-defined]
    if not found:
        return None
    line, what = min(found)
    return what, line


def _truth_of(test: ast.expr, param: str) -> bool:
    """Does evaluating ``test`` as a Python bool need ``param``'s value (not only its identity)?"""
    t = type(test)
    if t is ast.Name:
        return test.id == param  # type: ignore[attr-defined]
    if t is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
        return _truth_of(test.operand, param)  # type: ignore[attr-defined]
    if t is ast.BoolOp:
        return any(_truth_of(v, param) for v in test.values)  # type: ignore[attr-defined]
    if t is ast.Compare:
        if all(type(op) in _NO_CONCRETE for op in test.ops):  # type: ignore[attr-defined]
            return False
        return any(type(m) is ast.Name and m.id == param
                   for side in (test.left, *test.comparators) for m in _value_reads(side))  # type: ignore[attr-defined]
    return False


def _value_reads(node: ast.expr):
    """The names whose value ``node`` computes with: arithmetic, unary signs and the node itself; not what a
    call, an attribute (``m.shape``) or a subscript reads."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Name:
            yield n
        elif t is ast.BinOp:
            stack += [n.left, n.right]  # type: ignore[attr-defined]
        elif t is ast.UnaryOp:
            stack.append(n.operand)  # type: ignore[attr-defined]
