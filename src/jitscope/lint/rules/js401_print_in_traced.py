"""JS401 print-in-traced."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import is_builtin, short, static_guard, trace_time_effect_expected

_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


class PrintInTraced(Rule):
    """``print`` or ``logging`` inside a traced function.

    ## What it does
    Flags ``print(...)``, ``logging.info(...)`` (the standard library's or absl's,
    imports resolved) and calls on loggers made with ``logging.getLogger`` inside a
    traced function. What is printed decides the severity: a value that is an abstract
    tracer on every way the function is reached (a jit argument, a jnp result) prints as
    ``Traced<...>``, not numbers, and only while tracing: a ``warning`` naming it. A value
    that is a tracer only on some ways (a defaulted parameter no known caller passes, a
    Python number ``filter_jit`` keeps static) is ``info`` and says so. A print of Python
    values only (shapes, config, strings) is ``info``: it runs
    once per trace, which is often what was meant; behind a static ``if verbose:`` flag, or
    any ``if`` on Python values (a configuration warning such as ``if min_size < cutoff:``),
    it is not reported. Test files, functions traced only for shapes (``jax.eval_shape``,
    ``jax.make_jaxpr``) and functions named for tracing (``count_traces``) are skipped:
    trace-time effects are their point.

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
        return x + 1

    y = step(x)
    print("y =", y)   # outside jit: runs on every call, prints values
    ```
    ``jax.debug.print("x = {x}", x=x)`` inside the step also prints on every call, but it is a
    host callback: every call then leaves JAX's fast dispatch path (``jitscope watch`` JW501).
    Use it while debugging, not in a hot step.

    ## Fix safety
    No fix is offered: where the value should be printed is the user's choice.
    """

    code = "JS401"
    name = "print-in-traced"
    message = ("`{fn}` inside traced function `{function}` runs only while tracing, not on every call, and prints "
               "`{expr}` as a tracer, not its values; return the value and print or log it outside the jitted function "
               "(jax.debug.print only while debugging)")
    severity = "warning"
    requires = "staged"
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
        if fn is None or trace_time_effect_expected(ctx):
            return
        call: ast.Call = node  # type: ignore[assignment]
        args = [*call.args, *(k.value for k in call.keywords)]
        shown = next((a for a in args if _shows(ctx, a, ctx.is_must) or _observed_abstract(ctx, a)), None)
        if shown is not None:  # an abstract tracer on every way (or seen so by a run): it prints `Traced<...>`
            ctx.report(self, node, fn=fn, function=ctx.frame.name, expr=short(ctx, shown))
            return
        shown = next((a for a in args if _shows(ctx, a, ctx.is_traced)), None)
        if shown is not None:  # a tracer on some ways only: a Python value (printed once per trace) on others
            expr = short(ctx, shown)
            ctx.report(self, node, f"`{fn}` inside traced function `{ctx.frame.name}` prints `{expr}`, a tracer only on "
                       "the ways that trace it (a Python value on the others); it runs once per trace, not on every "
                       "call", severity="info", fn=fn, function=ctx.frame.name, expr=expr)
        elif not static_guard(ctx) and not _under_static_if(ctx):
            ctx.report(self, node, f"`{fn}` of Python values inside traced function `{ctx.frame.name}` runs once "
                       "per trace, not on every call", severity="info", fn=fn, function=ctx.frame.name)


def _under_static_if(ctx: Context) -> bool:
    """Is the call inside an ``if`` on Python values (a configuration check: ``if min_size < cutoff:``,
    ``if self.a is self.b:``)? A message printed there is a diagnostic meant to appear once, at trace time."""
    for p in reversed(ctx.parents):
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(p, ast.If) and not ctx.is_traced(p.test):
            return True
    return False


def _shows(ctx: Context, node: ast.AST, traced) -> bool:
    """Does printing ``node`` show a value ``traced`` holds for (``x``, ``f"{x}"``, ``str(x)``, ``"%s" % x``)?"""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) and _shows(ctx, v.value, traced) for v in node.values)
    if isinstance(node, ast.Call) and ctx.resolve(node.func) in ("str", "repr", "format") and node.args:
        return _shows(ctx, node.args[0], traced)
    if isinstance(node, ast.Starred):
        return _shows(ctx, node.value, traced)
    return traced(node)


def _observed_abstract(ctx: Context, node: ast.AST) -> bool:
    """A parameter a run saw as an abstract tracer here (``lint --evidence``): what it prints is a tracer, as
    observed, not guessed."""
    spec = ctx.frame.spec
    return isinstance(node, ast.Name) and spec is not None and node.id in spec.observed_abstract \
        and node.id not in ctx.frame.bound
