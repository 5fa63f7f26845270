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

    A function that captures a variable the loop binds anew on each iteration (``lambda v: v + t``
    in ``for t in ...``, ``partial(f, s)``, a lambda's default ``fn=fn``) is reported at ``info``:
    it computes something different per iteration, so hoisting it would change the program;
    the compile per iteration goes away only if the value can become a traced argument (an
    array). A Python value (a function, options, a shape) needs a compile per distinct value
    anyway, and a test looping over cases compiles per case on purpose.

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
        wrapper = ctx.resolve(node.func)  # type: ignore[attr-defined]
        captured = _captured_loop_names(ctx, node)  # type: ignore[arg-type]
        if captured:
            # The function differs per iteration in what it computes: hoisting it would change the program.
            # One compile per value is what it needs unless the value becomes an argument, which pays off only
            # if it can be traced (an array); a Python value (a function, options, a size) compiles per value
            # anyway, and a test looping over cases compiles per case on purpose. Advice on a condition: info.
            names = ", ".join(f"`{n}`" for n in captured)
            ctx.report(self, node, f"`{wrapper}` of {what} inside a loop captures the loop's {names}: it compiles once "
                       f"per iteration, for that iteration's value; if {names} can be an array, pass it as an "
                       "argument and one compile serves every iteration; a Python value (a function, options, a "
                       "shape) needs a compile per distinct value either way", severity="info", wrapper=wrapper,
                       what=what, captures=", ".join(captured))
            return
        ctx.report(self, node, wrapper=wrapper, what=what)


def _captured_loop_names(ctx: Context, call: ast.Call) -> list[str]:
    """Names the fresh function reads (its body, a lambda's defaults, what the call that makes it reads: a
    partial's function and arguments, a builder's arguments) that an enclosing
    loop of this function binds anew on each iteration (its target, or an assignment in its body)."""
    fn = call.args[0]
    if isinstance(fn, ast.Lambda):
        reads = _loads(fn.body, _params(fn.args)) | _loads_all([*fn.args.defaults, *fn.args.kw_defaults])
    elif isinstance(fn, ast.Call):
        # functools.partial(f, a, k=v), a function built by a call (`make_step(cfg)`), or a partial of one
        # (`partial(ntk_fn(apply, implementation=i), params=p)`): whatever the call reads makes the function
        reads = _loads(fn, set())
    elif isinstance(fn, ast.Name):
        d = next((n for n in ast.walk(ctx.frame.node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.name == fn.id and n is not ctx.frame.node), None) if ctx.frame.node is not None else None
        if d is None:
            return []
        own = _params(d.args) | {n.id for n in ast.walk(d) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        reads = _loads_all(d.body, own) | _loads_all([*d.args.defaults, *d.args.kw_defaults])
    else:
        return []
    bound: set[str] = set()
    for p in ctx.parents:
        if p is ctx.frame.node:
            bound.clear()  # only loops of this function
        if isinstance(p, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
            bound |= {n.id for n in ast.walk(p) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            bound |= {n.name for n in ast.walk(p) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n is not fn}  # a helper def'd in the loop is a new object capturing its iteration too
    return sorted(reads & bound)


def _params(args: ast.arguments) -> set[str]:
    out = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    out |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return out


def _loads(node: ast.AST, exclude: set[str]) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - exclude


def _loads_all(nodes: list, exclude: set[str] | None = None) -> set[str]:
    out: set[str] = set()
    for n in nodes:
        if n is not None:
            out |= _loads(n, exclude or set())
    return out


