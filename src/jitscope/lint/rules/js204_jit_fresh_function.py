"""JS204 jit-fresh-function."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE
from ._util import fresh_function


class JitFreshFunction(Rule):
    """``jax.jit`` of a lambda or local function created on every call of the enclosing function.

    ## What it does
    Flags ``jax.jit(lambda ...)``, ``jax.jit(partial(...))`` or ``jax.jit(inner)`` (``inner``
    defined in the same function) inside a function body, when the jitted result is used
    right there: called at once or kept in a local variable. Factories that ``return`` the
    jitted function or store it on ``self`` are not flagged, nor are test functions
    (``test*``), which run once, nor drivers that bind the jitted function to a name and
    call it inside a loop of the same function (``step = jax.jit(...)`` then
    ``for batch in data: step(...)``): that compiles once per run of the driver, and the
    loop reuses it. One-shot drivers are not flagged either: ``main``, a CLI command, or a
    module-level function called only from module-level code outside loops
    (``if __name__ == "__main__": train()``) compiles the same number of times without the jit.

    ## Why is this bad?
    Each call of the enclosing function creates a new function object, and jit's cache is
    keyed on function identity, so every call traces and compiles from scratch: a compile
    (often 10-1000x the run time) on every call.

    ## Example
    ```python
    def predict(params, x):
        return jax.jit(lambda p, v: model(p, v))(params, x)
    ```

    ## Use instead
    ```python
    predict_jit = jax.jit(model)

    def predict(params, x):
        return predict_jit(params, x)
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS204"
    name = "jit-fresh-function"
    message = "`{wrapper}` of {what} on every call of `{function}`: recompiles on every call; jit once at module level"
    severity = "warning"
    nodes = (ast.Call,)
    calls = JIT_LIKE
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if ctx.in_loop or len(ctx.frames) < 2 or isinstance(ctx.frame.node, ast.Lambda):
            return
        if ctx.frame.name.startswith(("test", "setUp")):
            return  # a test body runs once: compiling there is the test's business
        fn = ctx.frame.node
        if len(ctx.frames) == 2 and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and ctx.info.runs_once(fn):
            return  # a one-shot driver (`main`): it compiles once per run with or without the jit
        what = fresh_function(ctx, node)  # type: ignore[arg-type]
        if what is None:
            return
        parent = ctx.parents[-1] if ctx.parents else None
        if isinstance(parent, ast.Call) and parent.func is node:
            pass  # jit(...)(args): compiled and thrown away
        elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            if _escapes(ctx.frame.node, parent.targets[0].id):
                return
            if _called_in_loop(ctx.frame.node, parent.targets[0].id):
                return  # a driver: `step = jax.jit(...)` then `for batch in data: step(...)` compiles once per run
        else:
            return  # returned, stored on an object, passed on: a factory, created once by its caller
        ctx.report(self, node, wrapper=ctx.resolve(node.func), what=what,  # type: ignore[attr-defined]
                   function=ctx.frame.name)


def _escapes(fn: ast.AST | None, name: str) -> bool:
    """Is ``name`` itself (not a call of it) returned, yielded or stored somewhere that outlives the call?"""
    if fn is None:
        return True
    for n in ast.walk(fn):
        if isinstance(n, (ast.Return, ast.Yield)) and n.value is not None:
            if _mentions(n.value, name):
                return True
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id == name:
            if any(not isinstance(t, ast.Name) for t in n.targets):
                return True
    return False


def _mentions(node: ast.AST, name: str) -> bool:
    called = {id(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
    return any(isinstance(m, ast.Name) and m.id == name and id(m) not in called for m in ast.walk(node))


def _called_in_loop(fn: ast.AST | None, name: str) -> bool:
    """Is ``name(...)`` called inside a ``for``/``while`` loop of ``fn`` (not of a nested function)?"""
    if fn is None:
        return False
    stack: list[tuple[ast.AST, bool]] = [(c, False) for c in ast.iter_child_nodes(fn)]
    while stack:
        n, in_loop = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if in_loop and isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name:
            return True
        loop = in_loop or isinstance(n, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((c, loop) for c in ast.iter_child_nodes(n))
    return False
