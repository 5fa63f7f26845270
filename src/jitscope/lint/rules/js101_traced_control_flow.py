"""JS101 traced-control-flow."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import hint_static, short


class TracedControlFlow(Rule):
    """Python ``if``, ``while``, ternary or ``assert`` on a traced value.

    ## What it does
    Flags a Python branch or loop condition, a conditional expression (``a if c else b``)
    or an ``assert`` whose condition is computed from a traced value inside a function that
    JAX traces (``jax.jit``, ``vmap``, ``grad``, a ``lax.scan`` body, ...).

    ## Why is this bad?
    While tracing, a value is an abstract tracer with a shape and dtype but no contents.
    Python needs a concrete ``True``/``False`` to pick a branch, so tracing fails with
    ``TracerBoolConversionError`` (a ``ConcretizationTypeError``). The code works without
    jit and breaks the moment it is jitted.

    ## Example
    ```python
    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    ## Use instead
    Select with ``jnp.where`` (both sides are computed), branch with ``lax.cond``, or
    make the value static when it is a configuration, not data:
    ```python
    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)

    @partial(jax.jit, static_argnames="training")
    def apply(x, training):
        if training:
            ...
    ```

    ## Fix safety
    No fix is offered: the right replacement depends on whether both branches may run.
    """

    code = "JS101"
    name = "traced-control-flow"
    message = "Python `{kind}` on traced value `{expr}`: jit needs a concrete bool here"
    severity = "error"
    confidence = "certain"
    nodes = (ast.If, ast.While, ast.IfExp, ast.Assert)

    def check(self, node: ast.AST, ctx: Context) -> None:
        test = node.test  # type: ignore[attr-defined]
        if isinstance(test, ast.BoolOp) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return  # JS102 reports the operator
        if not ctx.is_traced(test):
            return
        kind = {ast.If: "if", ast.While: "while", ast.IfExp: "... if ... else", ast.Assert: "assert"}[type(node)]
        ctx.report(self, test, f"{self.message.format(kind=kind, expr=short(ctx, test))}; {hint_static(ctx, test)}",
                   kind=kind, expr=short(ctx, test))
