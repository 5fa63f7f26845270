"""JS203 jit-in-loop."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE
from ._util import fresh_function


class JitInLoop(Rule):
    """``jax.jit(...)`` of a lambda, closure or ``partial`` called inside a loop.

    ## What it does
    Flags a call to ``jax.jit`` (``pmap``, ``equinox.filter_jit``, ...) inside a ``for`` or
    ``while`` loop or a comprehension, when the function it wraps is a new object each
    time: a ``lambda``, a function defined inside the loop, or a ``functools.partial``.
    Wrapping a function defined before the loop is not flagged: it is the same object on
    every iteration, so jit's cache hits.

    Not flagged in a function that is itself traced: there the loop unrolls and the inner jit is
    inlined into the outer program (one compile in all; tests/test_lint_outer_trace.py).

    ## Why is this bad?
    jit caches compiled code by the identity of the function object. A new lambda per
    iteration is a new function, so every iteration traces and compiles again
    (``jitscope demo --only lambda_cache`` measures the cost on this machine).

    ## Example
    ```python
    for x in batches:
        y = jax.jit(lambda v: v * 2 + 1)(x)
    ```

    ## Use instead
    ```python
    double_plus_one = jax.jit(lambda v: v * 2 + 1)
    for x in batches:
        y = double_plus_one(x)
    ```

    ## Fix safety
    No fix is offered: hoisting changes which closure variables are captured.
    """

    code = "JS203"
    name = "jit-in-loop"
    message = "`{wrapper}` of {what} inside a loop: a new function object each iteration recompiles every time; create the jitted function once (outside the loop or the calling function) and reuse it"
    severity = "warning"
    nodes = (ast.Call,)
    calls = JIT_LIKE
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if not ctx.in_loop or ctx.under_trace:
            return  # under an outer trace the inner jit is inlined into the outer program: no compile per iteration
        what = fresh_function(ctx, node, in_loop=True)  # type: ignore[arg-type]
        if what is None:
            return
        ctx.report(self, node, wrapper=ctx.resolve(node.func), what=what)  # type: ignore[attr-defined]


