"""Calls that Python makes for an operator: ``a + b`` runs ``type(a).__add__(a, b)``, ``a == b`` its ``__eq__``,
``-a`` its ``__neg__``, ``if a:`` its ``__bool__``, ``len(a)`` its ``__len__``.

In traced code whose operand is an instance of a class of the module (a parameter annotated with it, or
``self`` in its own methods), the dunder is a function the trace reaches as surely as ``a.add(b)`` would be:
the call graph follows it with the operands' tracedness (the other operand is the dunder's first parameter;
a reflected ``__radd__`` runs when only the right operand is such an instance). ``a == b`` on two pytrees
under jit runs ``__eq__`` on tracers: ``jnp.all(self.x == other.x) and ...`` there raises
TracerBoolConversionError (tests/test_lint_operator_routes.py, under real ``jax.jit``).
"""

from __future__ import annotations

import ast
import os

from . import facts
from .callgraph import OutgoingCall, _annotated_class, _enclosing_class, _method, index
from .context import Context
from .rule import Rule

_BINARY = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and", ast.BitOr: "or",
    ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift",
}
_COMPARE = {ast.Eq: ("__eq__", "__eq__"), ast.NotEq: ("__ne__", "__ne__"), ast.Lt: ("__lt__", "__gt__"),
            ast.LtE: ("__le__", "__ge__"), ast.Gt: ("__gt__", "__lt__"), ast.GtE: ("__ge__", "__le__")}
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
_PROTOCOL_CALLS = {"len": "__len__", "bool": "__bool__", "abs": "__abs__"}


class OperatorEdges(Rule):
    """Internal hook (not a catalog rule): records the dunder calls operators make on the module's instances."""

    code = "JS000"
    name = "operator-edges"
    nodes = (ast.BinOp, ast.Compare, ast.UnaryOp, ast.If, ast.While, ast.Call)
    calls = ("len", "bool", "abs")
    traced_only = True

    def check(self, node: ast.AST, ctx: Context) -> None:
        t = type(node)
        if t is ast.BinOp:
            op = _BINARY.get(type(node.op))  # type: ignore[attr-defined]
            if op:
                _pair(ctx, node, node.left, node.right, f"__{op}__", f"__r{op}__")  # type: ignore[attr-defined]
        elif t is ast.Compare:
            left = node.left  # type: ignore[attr-defined]
            for cmp, right in zip(node.ops, node.comparators):  # type: ignore[attr-defined]
                names = _COMPARE.get(type(cmp))
                if names:
                    _pair(ctx, node, left, right, *names)
                left = right
        elif t is ast.UnaryOp:
            name = _UNARY.get(type(node.op))  # type: ignore[attr-defined]
            if name:
                _one(ctx, node, node.operand, name)  # type: ignore[attr-defined]
        elif t in (ast.If, ast.While):
            _one(ctx, node, node.test, "__bool__")  # type: ignore[attr-defined]
        elif t is ast.Call:
            f = node.func  # type: ignore[attr-defined]
            if type(f) is ast.Name and f.id in _PROTOCOL_CALLS and len(node.args) == 1:  # type: ignore[attr-defined]
                _one(ctx, node, node.args[0], _PROTOCOL_CALLS[f.id])  # type: ignore[attr-defined]


def _instance_class(ctx: Context, node: ast.AST) -> str | None:
    """The module class ``node`` is an instance of: a parameter annotated with it, or ``self`` in its methods."""
    if type(node) is not ast.Name:
        return None
    name = node.id  # type: ignore[attr-defined]
    if name == "self":
        return _enclosing_class(ctx)
    if ctx._local_frame(name) is None:  # type: ignore[attr-defined]
        return None
    cls = _annotated_class(ctx, name)
    return cls if cls is not None and cls in index(ctx).classes else None


def _pair(ctx: Context, node: ast.AST, left: ast.AST, right: ast.AST, name: str, reflected: str) -> None:
    cls = _instance_class(ctx, left)
    if cls is not None:
        _queue(ctx, node, cls, name, left, right)
        return
    cls = _instance_class(ctx, right)
    if cls is not None:
        _queue(ctx, node, cls, reflected, right, left)


def _one(ctx: Context, node: ast.AST, operand: ast.AST, name: str) -> None:
    cls = _instance_class(ctx, operand)
    if cls is not None:
        _queue(ctx, node, cls, name, operand, None)


def _queue(ctx: Context, node: ast.AST, cls: str, name: str, subject: ast.AST, other: ast.AST | None) -> None:
    if subject is not None and type(subject) is ast.Name and subject.id == "self" and \
            getattr(ctx.frame.node, "name", "") == name:  # type: ignore[attr-defined]
        return  # `self == other` inside `__eq__` itself
    traced = (0,) if other is not None and (ctx.is_traced(other) or _instance_class(ctx, other) is not None) else ()
    line = getattr(node, "lineno", 0)
    via = f"`{ctx.frame.name}` ({os.path.basename(ctx.filename)}:{line}) runs it through an operator"
    _method(ctx, cls, name, OutgoingCall("", traced=traced, via=via, staged=facts.staged(ctx), method=True,
                                         sites=frozenset({(line, getattr(node, "col_offset", 0))}),
                                         accessor=facts.in_accessor(ctx)), set())
