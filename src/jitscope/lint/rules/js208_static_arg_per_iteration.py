"""JS208 static-arg-per-iteration."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._static_args import message_via, static_arguments
from ._util import short

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_COUNTING = ("range", "tqdm.trange", "trange", "tqdm.auto.trange", "itertools.count", "count")
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


class StaticArgPerIteration(Rule):
    """A static argument of a jitted function fed a value that changes on every iteration of a loop.

    ## What it does
    Flags a call of a jitted function (decorated, or wrapped as ``g = jax.jit(f, ...)``, or
    ``self.step`` set to ``jax.jit(...)``) inside a ``for``/``while`` loop when an argument
    landing on one of its ``static_argnums``/``static_argnames`` changes from one iteration to the
    next: the counter of a ``range`` loop (or ``enumerate``'s index, ``trange``,
    ``itertools.count``), or a name or attribute the loop's body rebinds with ``+=`` or from its
    own value (``alpha = alpha * decay``), passed as is, converted by ``int``/``float``, or in
    arithmetic (``step + 1``). A value passed through ``%``, ``//``, a comparison or ``min`` takes
    few values and is not flagged. A jit bound in the calling function (``step_fn = jax.jit(step,
    static_argnames="t")``) and a project function that passes its parameter on to a jit's static
    position (``lint/wrappers.py``, across the linted modules) count as jitted calls too. Not flagged in
    a function that is itself traced: there the loop unrolls and the inner jit is inlined into the outer
    program (one compile in all; tests/test_lint_outer_trace.py).

    ## Why is this bad?
    jit keys its cache on the static arguments' values: every new value is a new trace and a
    new compile. A step counter or an annealed coefficient passed as static compiles the step
    once per iteration (checked under real ``jax.jit``: one compile per value), and the cache
    grows without bound.

    ## Example
    ```python
    step_fn = jax.jit(step, static_argnames="t")
    for t in range(1000):
        x = step_fn(x, t=t)
    ```

    ## Use instead
    ```python
    step_fn = jax.jit(step)  # t traced: one compile
    for t in range(1000):
        x = step_fn(x, t=t)
    ```

    ## Fix safety
    No fix is offered: which values may be traced, or where the state should go, is the program's choice.
    """

    code = "JS208"
    name = "static-arg-per-iteration"
    message = ("static argument `{param}` of `{function}` gets `{value}`, which changes on every iteration of the "
               "loop at line {line}: jit compiles `{function}` again for each new value; pass it as a traced "
               "argument (drop it from the static arguments)")
    severity = "warning"
    confidence = "likely"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        loops = _enclosing_loops(ctx)
        if not loops or ctx.under_trace:
            return  # under an outer trace the loop unrolls and the inner jit is inlined: one compile in all
        call: ast.Call = node  # type: ignore[assignment]
        found = static_arguments(ctx, call)
        if found is None:
            return
        function, passed = found
        for param, value in passed:
            loop = _varying(ctx, value, loops)
            if loop is not None:
                details = dict(param=param, function=function, value=short(ctx, value), line=loop.lineno)
                ctx.report(self, value, message_via(self, ctx, value, **details), **details)
                return


def _enclosing_loops(ctx: Context) -> list[ast.For | ast.AsyncFor | ast.While]:
    """The ``for``/``while`` loops of this function whose body holds the node, innermost first."""
    parents = ctx.parents
    out = []
    for k in range(len(parents) - 1, -1, -1):
        p = parents[k]
        if isinstance(p, _SCOPES) or isinstance(p, _COMPREHENSIONS):
            break
        if isinstance(p, (ast.For, ast.AsyncFor, ast.While)) and k + 1 < len(parents) and parents[k + 1] in p.body:
            out.append(p)
    return out


def _varying(ctx: Context, value: ast.expr, loops: list) -> ast.stmt | None:
    """The loop over which ``value`` takes a new value on every iteration, or None."""
    t = type(value)
    if t is ast.Call and type(value.func) is ast.Name and value.func.id in ("int", "float") \
            and len(value.args) == 1 and not value.keywords:
        return _varying(ctx, value.args[0], loops)
    if t is ast.BinOp and type(value.op) in _ARITH:
        left = _varying(ctx, value.left, loops)
        return left if left is not None else _varying(ctx, value.right, loops)
    if t is ast.UnaryOp and type(value.op) is ast.USub:
        return _varying(ctx, value.operand, loops)
    if t is ast.Name or (t is ast.Attribute and type(value.value) is ast.Name):
        for loop in loops:
            if t is ast.Name and _counter(ctx, loop, value.id):
                return loop
            if any(_steps(stmt, value) for stmt in loop.body for stmt in ast.walk(stmt)):
                return loop
    return None


def _counter(ctx: Context, loop, name: str) -> bool:
    """Is ``name`` the counter of a counting ``for`` loop (``range``, ``enumerate``'s index, ``trange``)?"""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
        return False
    q = ctx.resolve(loop.iter.func) or ""
    tgt = loop.target
    if q in _COUNTING or q.endswith(".trange"):
        return type(tgt) is ast.Name and tgt.id == name
    if q == "enumerate" and type(tgt) is ast.Tuple and tgt.elts:
        first = tgt.elts[0]
        return type(first) is ast.Name and first.id == name
    return False


def _same(a: ast.AST, b: ast.expr) -> bool:
    if type(b) is ast.Name:
        return type(a) is ast.Name and a.id == b.id
    return (type(a) is ast.Attribute and a.attr == b.attr and type(a.value) is ast.Name  # type: ignore[attr-defined]
            and a.value.id == b.value.id)  # type: ignore[attr-defined]


def _steps(stmt: ast.AST, value: ast.expr) -> bool:
    """Does ``stmt`` give ``value`` a new value from its old one (``x += 1``, ``x = x * decay``)?"""
    if type(stmt) is ast.AugAssign:
        return _same(stmt.target, value) and type(stmt.op) in _ARITH
    if type(stmt) is ast.Assign and len(stmt.targets) == 1 and _same(stmt.targets[0], value):
        rhs = stmt.value
        return type(rhs) is ast.BinOp and type(rhs.op) in _ARITH and any(
            _same(side, value) for side in (rhs.left, rhs.right))
    return False
