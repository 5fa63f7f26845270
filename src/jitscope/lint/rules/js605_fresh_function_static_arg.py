"""JS605 fresh-function-static-arg."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._static_args import cost_severity, jitted_param, message_via, static_arguments, via


class FreshFunctionStaticArg(Rule):
    """A function made anew on every call (a lambda, a local def, a ``partial``) passed as a static argument.

    ## What it does
    Flags a call of a jitted function (decorated, ``g = jax.jit(f, static_argnums=...)``, an inline
    ``jax.jit(f, static_argnums=...)(...)``, ``self.step``) from code that is not itself traced when an
    argument landing on a static parameter is a ``lambda``, a function defined in the calling
    function, or a ``functools.partial(...)`` built at the call, inside a function (made again on
    every call of it) or inside a loop (made again every iteration). A project function that passes
    its parameter to a static position of a jit, or jits it (``maybe_jit(f)``), in this module or
    another linted one, counts as a jitted call (``lint/wrappers.py``), and so does a name bound in the
    calling function to ``jax.jit(f, ...)``; the finding says which line makes the parameter static.
    Found through a wrapper or another module's jit in a function's straight-line code, it is an
    ``info``: the cost is paid only when that function runs outside jit.

    ## Why is this bad?
    jit keys its cache on the static arguments' hashes, and a function or a ``partial`` hashes by
    identity: a new object is a cache miss, so every call of the enclosing function traces and
    compiles the jitted function again (checked under real ``jax.jit``: a lambda per call compiles
    per call; the same module-level function once).

    ## Example
    ```python
    @partial(jax.jit, static_argnums=0)
    def solve(cond, x): ...

    def run(x, tol):
        return solve(lambda v: v > tol, x)
    ```

    ## Use instead
    ```python
    @jax.jit
    def solve(x, tol): ...          # pass the data, not a closure over it

    def run(x, tol):
        return solve(x, tol)
    ```

    ## Fix safety
    No fix is offered: the closure's captured values have to become arguments.
    """

    code = "JS605"
    name = "fresh-function-static-arg"
    message = ("{what} passed for static argument `{param}` of `{function}` is a new object {when}: jit hashes it by "
               "identity, so `{function}` is traced and compiled again each time; pass a function defined once "
               "(at module level) and its data as traced arguments")
    severity = "warning"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if ctx.frame.traced:
            return
        in_function = len(ctx.frames) > 1
        if not in_function and not ctx.in_loop:
            return  # made once at import
        call: ast.Call = node  # type: ignore[assignment]
        found = static_arguments(ctx, call, jitted=True)
        if found is None:
            return
        function, passed = found
        for param, value in passed:
            what = _fresh(ctx, value)
            if what is not None and via(ctx, value) and not ctx.in_loop \
                    and any(f.name.startswith("test") for f in ctx.frames):
                continue  # a test made it through a wrapper: it runs once per test, the new object is no cost
            if what is not None:
                when = "every iteration" if ctx.in_loop else f"on every call of `{ctx.frame.name}`"
                details = dict(what=what, param=param, function=function, when=when)
                msg = message_via(self, ctx, value, **details)
                if jitted_param(ctx, value):  # `maybe_jit(f)`: the function object itself is the cache key
                    msg = (f"{what} passed for `{param}` of `{function}`, which jits it, is a new object {when}: jit "
                           "caches by function identity, so it is traced and compiled again each time; define the "
                           f"function once (at module level) and pass its data as traced arguments{via(ctx, value)}")
                severity, note = cost_severity(ctx, value)
                ctx.report(self, value, (msg or self.message.format(**details)) + note, severity=severity, **details)
                return


def _fresh(ctx: Context, value: ast.AST) -> str | None:
    if isinstance(value, ast.Lambda):
        return "a lambda"
    if isinstance(value, ast.Call) and (ctx.resolve(value.func) or "").endswith("partial"):
        return "a `partial`"
    if isinstance(value, ast.Name) and len(ctx.frames) > 1 and value.id in ctx.frame.nested_defs:
        return f"local function `{value.id}`"
    return None
