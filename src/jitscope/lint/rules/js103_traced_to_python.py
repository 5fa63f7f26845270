"""JS103 traced-to-python."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import hint_static, is_builtin, short


class TracedToPython(Rule):
    """``.item()``, ``.tolist()``, ``float()``, ``int()`` or ``complex()`` on a traced value.

    ## What it does
    Flags conversions of a traced array to a Python number or list inside a traced function.

    ## Why is this bad?
    A tracer has no value to convert while tracing: jit raises
    ``ConcretizationTypeError`` (or ``TracerIntegerConversionError``). Outside jit the same
    call forces a device-to-host copy and a sync on every call.

    ## Example
    ```python
    @jax.jit
    def scale(x, n):
        return x * float(n.sum())
    ```

    ## Use instead
    Keep the value as an array (``x * n.sum()``, ``.astype(jnp.float32)``), or make the
    argument static if it really is a Python number known before the call.

    ## Fix safety
    No fix is offered.
    """

    code = "JS103"
    name = "traced-to-python"
    message = "`{conv}` on traced value `{expr}` needs a concrete value"
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Call,)
    calls = ("float", "int", "complex", ".item", ".tolist")

    def check(self, node: ast.AST, ctx: Context) -> None:
        func = node.func  # type: ignore[attr-defined]
        if isinstance(func, ast.Attribute) and func.attr in ("item", "tolist") and ctx.is_traced(func.value):
            conv, target = f".{func.attr}()", func.value
        else:
            b = is_builtin(ctx, func, ("float", "int", "complex"))
            if b is None or len(node.args) != 1 or not ctx.is_traced(node.args[0]):  # type: ignore[attr-defined]
                return
            conv, target = f"{b}()", node.args[0]  # type: ignore[attr-defined]
        expr = short(ctx, target)
        advice = hint_static(ctx, target, "keep it an array (.astype, jnp ops)")
        ctx.report(self, node, f"{self.message.format(conv=conv, expr=expr)}; {advice}", subject=target, conv=conv,
                   expr=expr)
