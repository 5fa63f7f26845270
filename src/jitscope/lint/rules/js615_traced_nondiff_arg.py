"""JS615 traced-nondiff-arg."""

from __future__ import annotations

import ast

from ...jaxmodel import known
from ..context import Context
from ..reach import nondiff_options
from ..rule import Rule
from ._util import short

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class TracedNondiffArg(Rule):
    """A traced value passed for a ``nondiff_argnums`` argument of a ``custom_vjp`` function.

    ## What it does
    Flags, in traced code, a call of a function of the module made with ``jax.custom_vjp`` and
    ``nondiff_argnums`` (``@partial(jax.custom_vjp, nondiff_argnums=(1,))``, or ``f = jax.custom_vjp(g,
    nondiff_argnums=(1,))``) that passes a traced value (a traced parameter, or a value computed from one)
    at a non-differentiated position, by position or by the parameter's name.

    ## Why is this bad?
    ``custom_vjp`` checks its non-differentiated arguments for tracers and raises
    ``UnexpectedTracerError`` ("Found a JAX Tracer object passed as an argument to a custom_vjp function in a
    position indicated by nondiff_argnums as non-differentiable"), on the forward call already, under jit as
    under grad (checked under real JAX). Eager calls with a concrete array work, which hides it until the
    caller is jitted. ``custom_jvp`` accepts a tracer there and is not flagged.

    ## Example
    ```python
    @partial(jax.custom_vjp, nondiff_argnums=(1,))
    def clip_grad(x, bound): ...

    @jax.jit
    def step(x, bound):
        return clip_grad(x, bound)
    ```

    ## Use instead
    ```python
    @jax.custom_vjp          # a differentiable argument; its cotangent in the bwd rule can be zeros
    def clip_grad(x, bound): ...
    ```

    ## Fix safety
    No fix is offered: the bwd rule's signature changes with the argument's role.
    """

    code = "JS615"
    name = "traced-nondiff-arg"
    message = ("traced value `{value}` passed for `{param}`, a `nondiff_argnums` argument of the custom_vjp "
               "function `{function}`: custom_vjp raises UnexpectedTracerError for a tracer there; make `{param}` "
               "a differentiable argument (its bwd rule returns a zero cotangent for it), or pass a Python value")
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        if not isinstance(call.func, ast.Name) or ctx._local_frame(call.func.id) is not None:
            return
        found = nondiff_params(ctx).get(call.func.id)
        if not found:
            return
        params, positions = found
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                break
            if i in positions and ctx.is_traced(arg):
                self._report(ctx, arg, params[i], call.func.id)
        for k in call.keywords:
            if k.arg in params and params.index(k.arg) in positions and ctx.is_traced(k.value):
                self._report(ctx, k.value, k.arg, call.func.id)

    def _report(self, ctx: Context, value: ast.expr, param: str, function: str) -> None:
        details = dict(value=short(ctx, value), param=param, function=function)
        ctx.report(self, value, subject=value, **details)


def nondiff_params(ctx: Context) -> dict[str, tuple[list[str], frozenset[int]]]:
    """Module-level functions made with a transform whose non-differentiated arguments reject tracers
    (``known.NONDIFF_REJECTS_TRACERS``: custom_vjp) -> (the function's positional parameters, the positions
    declared non-differentiated)."""
    table = ctx.table(nondiff_params)
    got = table.get("module")
    if got is not None:
        return got
    defs = {s.name: s for s in ctx.tree.body if isinstance(s, _DEFS)}
    out: dict[str, tuple[list[str], frozenset[int]]] = {}
    for name, fn in defs.items():
        for dec in fn.decorator_list:
            if isinstance(dec, ast.Call) and (ctx.info.resolve(dec.func) or "").endswith("partial") and dec.args \
                    and ctx.info.resolve(dec.args[0]) in known.NONDIFF_REJECTS_TRACERS:
                _add(ctx, out, name, fn, dec.keywords)
    for stmt in ctx.tree.body:  # f = jax.custom_vjp(g, nondiff_argnums=(1,))
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call) and ctx.info.resolve(stmt.value.func) in \
                known.NONDIFF_REJECTS_TRACERS and stmt.value.args and isinstance(stmt.value.args[0], ast.Name) \
                and stmt.value.args[0].id in defs:
            _add(ctx, out, stmt.targets[0].id, defs[stmt.value.args[0].id], stmt.value.keywords)
    table["module"] = out
    return out


def _add(ctx: Context, out: dict, name: str, fn: ast.AST, keywords: list[ast.keyword]) -> None:
    params = [p.arg for p in fn.args.posonlyargs + fn.args.args]  # type: ignore[attr-defined]
    positions = nondiff_options(ctx, params, keywords)
    if positions:
        out[name] = (params, frozenset(positions))
