"""JS102 traced-bool-operator."""

from __future__ import annotations

import ast

from ..engine import Context
from ..registry import Rule
from ._util import hint_static, is_builtin, short

_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)


class TracedBoolOperator(Rule):
    """``and``, ``or``, ``not`` or ``bool()`` applied to a traced value.

    ## What it does
    Flags the Python boolean operators and ``bool(x)`` when an operand whose truth value
    Python must know is a traced array inside a traced function.

    ## Why is this bad?
    ``and``/``or``/``not`` call ``bool()`` on their operand, which needs a concrete value:
    under jit this raises ``TracerBoolConversionError``. On arrays with more than one
    element it is ambiguous even without jit.

    ## Example
    ```python
    @jax.jit
    def in_range(x, lo, hi):
        return x > lo and x < hi
    ```

    ## Use instead
    Use the element-wise operators or functions, which stay in the graph:
    ```python
    @jax.jit
    def in_range(x, lo, hi):
        return (x > lo) & (x < hi)    # or jnp.logical_and(...)
    ```

    ## Fix safety
    No fix is offered: ``&``/``|`` evaluate both sides and bind more tightly than ``and``/``or``.
    """

    code = "JS102"
    name = "traced-bool-operator"
    message = "`{op}` on traced value `{expr}` calls bool() on a tracer"
    severity = "error"
    nodes = (ast.BoolOp, ast.UnaryOp, ast.Call)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            parent = ctx.parents[-1] if ctx.parents else None
            in_test = isinstance(parent, _TESTS) and parent.test is node  # type: ignore[attr-defined]
            candidates = node.values if in_test else node.values[:-1]
            hit = next((v for v in candidates if ctx.is_traced(v)), None)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.Not):
                return
            op, hit = "not", node.operand if ctx.is_traced(node.operand) else None
        else:
            if not (is_builtin(ctx, node.func, ("bool",)) and len(node.args) == 1):  # type: ignore[attr-defined]
                return
            op, hit = "bool()", node.args[0] if ctx.is_traced(node.args[0]) else None  # type: ignore[attr-defined]
        if hit is None:
            return
        expr = short(ctx, hit)
        advice = "use &, |, ~ or jnp.logical_and/or/not" if op != "bool()" else hint_static(ctx, hit)
        ctx.report(self, node, f"{self.message.format(op=op, expr=expr)}; {advice}", op=op, expr=expr)
