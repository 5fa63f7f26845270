"""JS401 print-in-traced."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import is_builtin

_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


class PrintInTraced(Rule):
    """``print`` or ``logging`` inside a traced function.

    ## What it does
    Flags ``print(...)``, ``logging.info(...)`` (the standard library's or absl's,
    imports resolved) and calls on loggers made with ``logging.getLogger`` inside a
    traced function.

    ## Why is this bad?
    The body of a jitted function runs once, while tracing; later calls run the compiled
    graph and skip all Python side effects. The print fires on the first call (showing
    tracers such as ``Traced<ShapedArray(float32[3])>``, not values) and then never again,
    until something forces a retrace.

    ## Example
    ```python
    @jax.jit
    def step(x):
        print("x =", x)
        return x + 1
    ```

    ## Use instead
    ```python
    @jax.jit
    def step(x):
        jax.debug.print("x = {x}", x=x)   # runs on every call, prints values
        return x + 1
    ```

    ## Fix safety
    No fix is offered: ``jax.debug.print`` takes a format string, not print's arguments.
    """

    code = "JS401"
    name = "print-in-traced"
    message = "`{fn}` inside traced function `{function}` runs only while tracing, not on every call; use jax.debug.print"
    severity = "warning"
    nodes = (ast.Call,)
    calls = ("print", *(f".{m}" for m in _LOG_METHODS))

    def check(self, node: ast.AST, ctx: Context) -> None:
        func = node.func  # type: ignore[attr-defined]
        fn = is_builtin(ctx, func, ("print",))
        if fn is None and isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS:
            q = ctx.resolve(func) or ""
            base = func.value
            if q.startswith(("logging.", "absl.logging.")) or (isinstance(base, ast.Name) and base.id in ctx.info.loggers) or (
                    isinstance(base, ast.Attribute) and base.attr in ctx.info.loggers):
                fn = ctx.segment(func)
        if fn is not None:
            ctx.report(self, node, fn=fn, function=ctx.frame.name)
