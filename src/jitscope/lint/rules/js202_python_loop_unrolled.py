"""JS202 python-loop-unrolled."""

from __future__ import annotations

import ast

from ..engine import ARRAY_NAMESPACES, Context
from ..registry import Rule
from ._util import Span, short

UNROLL_THRESHOLD = 16  # literal trip counts below this are treated as intentional small unrolls


class PythonLoopUnrolled(Rule):
    """A Python ``for`` loop over a traced array or an array's length, with array work in its body.

    ## What it does
    Flags, inside a traced function, a ``for`` loop that iterates over a traced array
    (``for row in x``), over ``range(x.shape[0])`` / ``range(len(x))``, or over a literal
    ``range(N)`` with N of 16 or more, when the body does array work. The trip count is
    shown when it is known statically.

    ## Why is this bad?
    jit traces Python loops by running them: the body is copied into the graph once per
    iteration. Graph size, and compile time (roughly quadratic in the number of ops),
    grow with the trip count, and every new length recompiles. ``lax.scan`` or
    ``lax.fori_loop`` traces the body once and becomes a single XLA while loop.

    ## Example
    ```python
    @jax.jit
    def walk(steps):
        pos = 0.0
        for i in range(steps.shape[0]):
            pos = pos + steps[i]
        return pos
    ```

    ## Use instead
    ```python
    @jax.jit
    def walk(steps):
        final, path = lax.scan(lambda p, s: (p + s, p + s), 0.0, steps)
        return final
    ```
    Loops over a short static Python list, or ``range(3)``, are fine and not flagged.

    ## Fix safety
    No fix is offered.
    """

    code = "JS202"
    name = "python-loop-unrolled"
    message = "Python loop over {what} is unrolled into the graph ({trips}); use lax.scan / lax.fori_loop"
    severity = "warning"
    nodes = (ast.For,)

    def check(self, node: ast.AST, ctx: Context) -> None:
        it = node.iter  # type: ignore[attr-defined]
        what = trips = None
        inner = it
        if isinstance(it, ast.Call) and ctx.resolve(it.func) in ("enumerate", "zip", "reversed") and it.args:
            inner = it.args[0]
        if ctx.is_traced(inner) and not (isinstance(inner, ast.Call) and ctx.resolve(inner.func) == "range"):
            what, trips = f"traced array `{short(ctx, inner)}`", f"{short(ctx, inner)}.shape[0] iterations"
        elif isinstance(inner, ast.Call) and ctx.resolve(inner.func) == "range" and inner.args:
            bound = inner.args[-1] if len(inner.args) == 1 else inner.args[1]
            if _shape_derived(bound):
                what, trips = f"`{short(ctx, inner)}`", f"{short(ctx, bound)} iterations, fixed at trace time"
            else:
                n = _literal_trips(inner)
                if n is not None and n >= UNROLL_THRESHOLD:
                    what, trips = f"`{short(ctx, inner)}`", f"{n} iterations"
        if what is None or not _does_array_work(ctx, node.body):  # type: ignore[attr-defined]
            return
        ctx.report(self, Span(node, it), what=what, trips=trips)  # type: ignore[arg-type]


def _shape_derived(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "size"):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len":
            return True
    return False


def _literal_trips(call: ast.Call) -> int | None:
    try:
        args = [ast.literal_eval(a) for a in call.args]
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if not all(isinstance(a, int) for a in args) or len(args) > 3:
        return None
    try:
        return len(range(*args))
    except (ValueError, OverflowError):
        return None


def _does_array_work(ctx: Context, body: list[ast.stmt]) -> bool:
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call):
                q = ctx.resolve(n.func) or ""
                if q.startswith(ARRAY_NAMESPACES):
                    return True
                if isinstance(n.func, ast.Attribute) and ctx.is_traced(n.func.value):
                    return True
                if any(ctx.is_traced(a) for a in n.args):  # `y = f(y)`: a traced call per iteration
                    return True
            elif isinstance(n, (ast.BinOp, ast.Subscript)) and ctx.is_traced(n):
                return True
            elif isinstance(n, ast.AugAssign) and (ctx.is_traced(n.value) or ctx.is_traced(n.target)):
                return True
    return False
