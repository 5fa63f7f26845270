"""JS102 traced-bool-operator."""

from __future__ import annotations

import ast

from .. import guards
from ..context import Context
from ..rule import Rule
from ._util import handles_concretization, hint_static, is_builtin, short

_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)


class TracedBoolOperator(Rule):
    """``and``, ``or``, ``not``, ``bool()`` or two-argument ``max``/``min`` applied to a traced value.

    ## What it does
    Flags the Python boolean operators and ``bool(x)`` when an operand whose truth value
    Python must know is a traced array inside a traced function, and the builtins
    ``max(a, b, ...)`` / ``min(a, b, ...)`` with a traced argument (they compare their
    arguments in Python: ``max(x, 0.0)`` calls ``bool(0.0 > x)``).

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
    Use the element-wise operators or functions, which stay in the graph
    (``jnp.maximum(x, y)`` / ``jnp.minimum(x, 0.0)`` for ``max``/``min``):
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
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.BoolOp, ast.UnaryOp, ast.Call)
    calls = ("bool", "max", "min")

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            parent = ctx.parents[-1] if ctx.parents else None
            in_test = isinstance(parent, _TESTS) and parent.test is node  # type: ignore[attr-defined]
            candidates = node.values if in_test else node.values[:-1]
            hit = next((v for v in guards.traced_operands(ctx, node) if v in candidates), None)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.Not):
                return
            op, hit = "not", node.operand if ctx.is_traced(node.operand) else None
        else:
            fn = is_builtin(ctx, node.func, ("bool", "max", "min"))  # type: ignore[attr-defined]
            args = node.args  # type: ignore[attr-defined]
            if fn == "bool" and len(args) == 1:
                op, hit = "bool()", args[0] if ctx.is_traced(args[0]) else None
            elif fn in ("max", "min") and len(args) >= 2 and not node.keywords \
                    and not any(isinstance(a, ast.Starred) for a in args):  # type: ignore[attr-defined]
                op, hit = f"{fn}()", next((a for a in args if ctx.is_traced(a)), None)
            else:
                return
        if hit is None or handles_concretization(ctx, node):
            return
        expr = short(ctx, hit)
        if op in ("max()", "min()"):
            advice = f"it compares its arguments with `>`/`<`; use jnp.{'maximum' if op == 'max()' else 'minimum'}"
        else:
            advice = "use &, |, ~ or jnp.logical_and/or/not" if op != "bool()" else hint_static(ctx, hit)
        ctx.report(self, node, f"{self.message.format(op=op, expr=expr)}; {advice}", subject=hit, op=op, expr=expr)
