"""JS302 data-dependent-shape."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import short

_SIZED = frozenset({"nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
                    "unique_inverse", "unique_all"})


class DataDependentShape(Rule):
    """``jnp.nonzero``/``argwhere``/``flatnonzero``/``unique`` or one-argument ``jnp.where`` without ``size=``.

    ## What it does
    Flags, inside a traced function, the ``jax.numpy`` functions whose output length
    depends on the data (``nonzero``, ``argwhere``, ``flatnonzero``, the ``unique``
    family, and ``jnp.where(cond)`` with a single argument, also as the ``x.nonzero()``
    method) when they are called without ``size=``.

    ## Why is this bad?
    jit needs output shapes at trace time. Without ``size=`` these functions raise a
    ``ConcretizationTypeError`` under jit.

    ## Example
    ```python
    @jax.jit
    def positive_indices(x):
        return jnp.nonzero(x > 0)
    ```

    ## Use instead
    Give a static upper bound and a fill value, or use the three-argument ``jnp.where``:
    ```python
    @jax.jit
    def positive_indices(x):
        return jnp.nonzero(x > 0, size=x.shape[0], fill_value=-1)
    ```

    ## Fix safety
    No fix is offered: only you know the right ``size`` and ``fill_value``.
    """

    code = "JS302"
    name = "data-dependent-shape"
    message = "`{fn}` without size= has a data-dependent output shape (fails under jit); pass size= and fill_value="
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Call,)
    calls = (*(f"jax.numpy.{fn}" for fn in (*_SIZED, "where")), ".nonzero")

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        if any(k.arg == "size" for k in call.keywords):
            return
        q = ctx.resolve(call.func) or ""
        head, _, fn = q.rpartition(".")
        if head == "jax.numpy" and (fn in _SIZED or (fn == "where" and len(call.args) == 1 and not call.keywords)):
            if fn == "where" or any(ctx.is_traced(a) for a in call.args):
                # the claim rests on the data being abstract (the call itself may return a tuple of arrays)
                ctx.report(self, call, subject=call.args[0] if call.args else None,
                           fn=f"jnp.{fn}" + ("(cond)" if fn == "where" else ""))
        elif isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero" and ctx.is_traced(call.func.value):
            recv = short(ctx, call.func.value)
            if not isinstance(call.func.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                recv = f"({recv})"
            ctx.report(self, call, subject=call.func.value, fn=f"{recv}.nonzero()")
