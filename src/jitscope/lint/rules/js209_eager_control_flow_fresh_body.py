"""JS209 eager-control-flow-fresh-body."""

from __future__ import annotations

import ast

from ..context import Context
from ..facts import importable, references
from ..rule import Rule

# Control flow whose eager call traces its body and compiles the primitive, cached on the body's identity.
_CONTROL = frozenset({"jax.lax.cond", "jax.lax.switch", "jax.lax.while_loop", "jax.lax.fori_loop", "jax.lax.scan",
                      "jax.lax.map"})
_BODY_ARGS = {"jax.lax.cond": (1, 2), "jax.lax.switch": (1,), "jax.lax.while_loop": (0, 1),
              "jax.lax.fori_loop": (2,), "jax.lax.scan": (0,), "jax.lax.map": (0,)}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class EagerControlFlowFreshBody(Rule):
    """``lax.cond``/``scan``/``fori_loop``/... called eagerly in a loop with a body made anew each iteration.

    ## What it does
    Flags a ``jax.lax`` control-flow call (``cond``, ``switch``, ``while_loop``, ``fori_loop``,
    ``scan``, ``map``) inside a ``for``/``while`` loop of code that is certainly not traced (the
    module's top level, or a function that only the module's top level calls, in a script or under
    a private name) when a body it is given is a ``lambda``, a ``functools.partial`` or a function
    defined inside the loop.

    ## Why is this bad?
    Called outside jit, each of these traces its body and compiles the primitive, cached on the
    body's identity (checked under real JAX: ``lax.cond`` with fresh lambdas compiled on every
    iteration, the same functions once). A new lambda per iteration is a new body: a trace and a
    compile per iteration. Under a jit the same code is traced once with the enclosing function,
    which is why library code that its users jit is not flagged.

    ## Example
    ```python
    for x in batches:
        y = lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)
    ```

    ## Use instead
    ```python
    def up(v): return v + 1
    def down(v): return v - 1
    for x in batches:
        y = lax.cond(x.sum() > 0, up, down, x)   # or jit the loop body
    ```

    ## Fix safety
    No fix is offered: which values may be traced, or where the state should go, is the program's choice.
    """

    code = "JS209"
    name = "eager-control-flow-fresh-body"
    message = ("`{wrapper}` called eagerly inside a loop with {what} as its body: outside jit it traces and compiles "
               "again for each new body object, every iteration; define the body once before the loop (or jit the "
               "loop's step)")
    severity = "warning"
    nodes = (ast.Call,)
    calls = _CONTROL
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        q = ctx.resolve(call.func) or ""
        if q not in _CONTROL or ctx.frame.traced or not ctx.in_loop or not _certainly_eager(ctx):
            return
        for i in _BODY_ARGS[q]:
            if i >= len(call.args):
                continue
            arg = call.args[i]
            if isinstance(arg, (ast.List, ast.Tuple)):  # lax.switch(i, [f, g], x)
                found = next((w for w in map(lambda a: _fresh(ctx, a), arg.elts) if w), None)
            else:
                found = _fresh(ctx, arg)
            if found:
                ctx.report(self, call, wrapper=q.replace("jax.lax.", "lax."), what=found)
                return


def _fresh(ctx: Context, arg: ast.AST) -> str | None:
    if isinstance(arg, ast.Lambda):
        return "a lambda"
    if isinstance(arg, ast.Call) and (ctx.resolve(arg.func) or "").endswith("partial"):
        return "a new `partial`"
    if isinstance(arg, ast.Name) and len(ctx.frames) > 1 and arg.id in ctx.frame.loop_defs:
        return f"local function `{arg.id}` (defined anew in every iteration)"
    return None


def _certainly_eager(ctx: Context) -> bool:
    """Is the current code run outside any trace on every way it is reached: the module's top level, or
    a module-level function nobody outside can call whose every reference is a call from the top level?"""
    if len(ctx.frames) == 1:
        return True
    if len(ctx.frames) != 2:
        return False
    frame = ctx.frame
    fn = frame.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn not in ctx.tree.body or fn.decorator_list:
        return False
    if importable(ctx, frame):
        return False
    n = ctx.memo(_top_level_calls).get(fn.name, 0)
    return n > 0 and references(ctx)[fn.name] == n


def _top_level_calls(ctx: Context) -> dict[str, int]:
    """``name(...)`` calls in the module's own statements (``if __name__ == "__main__":`` included), not in
    any def, lambda or class."""
    out: dict[str, int] = {}
    stack: list[ast.AST] = [s for s in ctx.tree.body if not isinstance(s, _SCOPES)]
    while stack:
        n = stack.pop()
        if isinstance(n, _SCOPES):
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            out[n.func.id] = out.get(n.func.id, 0) + 1
        stack.extend(ast.iter_child_nodes(n))
    return out
