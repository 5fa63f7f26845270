"""JS402 global-assignment-in-traced."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import trace_time_effect_expected


class GlobalAssignmentInTraced(Rule):
    """Assigning a ``global`` or ``nonlocal`` name inside a traced function.

    ## What it does
    Flags assignments (``=``, ``+=``, annotated, ``del``) to names declared ``global`` or
    ``nonlocal`` in a traced function. Test files, functions traced only for shapes
    (``jax.eval_shape``, ``jax.make_jaxpr``), functions named for tracing and variables
    named for traces (``n_traces += 1``) are skipped: counting traces is their point.

    ## Why is this bad?
    The assignment runs once, at trace time, and stores a tracer (or a trace-time value)
    outside the function. Later calls reuse the compiled graph and do not assign anything;
    a leaked tracer used later raises ``UnexpectedTracerError``. jit requires pure
    functions: results go out through return values.

    ## Example
    ```python
    counter = 0

    @jax.jit
    def step(x):
        global counter
        counter += 1
        return x * 2
    ```

    ## Use instead
    ```python
    @jax.jit
    def step(x, counter):
        return x * 2, counter + 1
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS402"
    name = "global-assignment-in-traced"
    message = "assigns {scope} `{var}` inside traced function `{function}`: runs once at trace time, not on every call; return the value instead of assigning a {scope}"
    severity = "warning"
    requires = "staged"
    nodes = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)

    def check(self, node: ast.AST, ctx: Context) -> None:
        f = ctx.frame
        if not f.declared_global and not f.declared_nonlocal:
            return  # the common case: nothing in this function is declared global or nonlocal
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]  # type: ignore[attr-defined]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and (n.id in f.declared_global or n.id in f.declared_nonlocal):
                    if trace_time_effect_expected(ctx, n.id):
                        continue
                    scope = "global" if n.id in f.declared_global else "nonlocal"
                    ctx.report(self, n, scope=scope, var=n.id, function=f.name)
