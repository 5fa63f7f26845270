"""JS301 boolean-mask-index."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import short


class BooleanMaskIndex(Rule):
    """Indexing a traced array with a boolean mask (``x[x < 0]``).

    ## What it does
    Flags subscripts whose index is a boolean array computed from traced values (a
    comparison, ``~mask``, ``m1 & m2``, ``jnp.isnan(x)``, or a name holding one) inside a
    traced function, or the mask a module function returns on every ``return`` with ``jnp``
    (``return jnp.arange(n) < k``) called from staged code: staged with its caller, it is a
    tracer even when its arguments are Python sizes.

    ## Why is this bad?
    The result's length depends on how many elements are ``True``, which is data. jit
    needs every shape at trace time, so this raises ``NonConcreteBooleanIndexError``
    ("Array boolean indices must be concrete").

    ## Example
    ```python
    @jax.jit
    def sum_negatives(x):
        return x[x < 0].sum()
    ```

    ## Use instead
    Keep the shape and zero out what you do not want, or give the result a fixed size:
    ```python
    @jax.jit
    def sum_negatives(x):
        return jnp.where(x < 0, x, 0).sum()
    ```

    ## Fix safety
    No fix is offered: the replacement depends on what the masked values feed into.
    """

    code = "JS301"
    name = "boolean-mask-index"
    message = "boolean mask index `{expr}` gives a data-dependent shape (NonConcreteBooleanIndexError under jit); use jnp.where(mask, x, 0) or a fixed size"
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Subscript,)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
            return
        index = node.slice  # type: ignore[attr-defined]
        if ctx.is_mask(index) and ctx.is_traced(node.value):  # type: ignore[attr-defined]
            ctx.report(self, node, expr=short(ctx, node))
