"""JS305 carry-dtype-mismatch."""

from __future__ import annotations

import ast

from ...jaxmodel.dtypes import Dtype, DtypeOf
from ..astutil import iter_child_nodes
from ..context import Context
from ..rule import Rule

_LOOPS = {"jax.lax.fori_loop": (2, 3), "jax.lax.while_loop": (1, 2), "jax.lax.scan": (0, 1)}
_COND = "jax.lax.cond"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class CarryDtypeMismatch(Rule):
    """A ``lax`` loop carry or ``lax.cond`` branch outputs whose dtypes certainly differ.

    ## What it does
    Flags ``lax.fori_loop``/``while_loop``/``scan`` whose initial carry has a dtype the source states
    (``jnp.zeros(n, jnp.int16)``, ``jnp.int16(0)``, ``x.astype(...)``) while the body returns, for that
    carry, a value of another stated dtype; and ``lax.cond`` whose two branches return values of two
    different stated dtypes. Dtypes follow JAX's promotion rules (jaxmodel/dtypes.py): a Python scalar is
    weakly typed and takes the other operand's dtype, so ``c + 1`` keeps an ``int16`` carry ``int16``.

    ## Why is this bad?
    JAX requires the carry a loop body returns to have exactly the type of the carry it received, and both
    branches of ``cond`` to return the same types; otherwise it raises ``TypeError`` ("carry input and carry
    output must have equal types", "cond branches must have equal output types"), eagerly and under jit
    alike (checked under real JAX). Weak-type differences alone are promoted by JAX and not flagged; nor is
    anything whose dtype depends on ``jax_enable_x64`` (64-bit names) or on an argument's dtype.

    ## Example
    ```python
    board = jnp.zeros(121, jnp.int16)
    board = lax.fori_loop(0, 6, lambda i, b: b + jnp.int32(1), board)
    ```

    ## Use instead
    ```python
    board = jnp.zeros(121, jnp.int32)   # or cast in the body: (b + 1).astype(b.dtype)
    ```

    ## Fix safety
    No fix is offered: which dtype the state should have is the program's choice.
    """

    code = "JS305"
    name = "carry-dtype-mismatch"
    message = "{what}: JAX raises TypeError ({why})"
    severity = "error"
    confidence = "certain"
    nodes = (ast.Call,)
    calls = frozenset(_LOOPS) | {_COND}
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        q = ctx.resolve(call.func) or ""
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            return
        # the call's own line is reached once per call outside loops: names have their last value above it
        outer = DtypeOf(ctx.frame.node if ctx.frame.node is not None else ctx.tree, ctx.resolve,
                        before=None if ctx.in_loop else call.lineno)
        if q == _COND:
            self._cond(call, ctx, outer)
            return
        spec = _LOOPS.get(q)
        if spec is None or len(call.args) <= spec[1]:
            return
        body = _function(ctx, call.args[spec[0]])
        init = call.args[spec[1]]
        if body is None:
            return
        params = [a.arg for a in body.args.args]
        carry_pos = 1 if q == "jax.lax.fori_loop" else 0
        if len(params) <= carry_pos:
            return
        init_dt = outer(init)
        given = {p: None for p in params}
        given[params[carry_pos]] = init_dt
        inner = DtypeOf(body, ctx.resolve, given)
        elts = _pairs(init, outer)
        for ret in _returns(body):
            if q == "jax.lax.scan":
                if not isinstance(ret, ast.Tuple) or len(ret.elts) != 2:
                    continue
                ret = ret.elts[0]
            outs = [(None, init_dt, inner(ret))]
            if isinstance(ret, ast.Tuple) and elts is not None and len(ret.elts) == len(elts):
                outs = [(i, d, inner(r)) for i, (d, r) in enumerate(zip(elts, ret.elts))]
            for i, d_in, d_out in outs:
                if _differ(d_in, d_out):
                    where = "" if i is None else f" (element {i})"
                    ctx.report(self, ret, what=f"`{q.replace('jax.', '')}` carry{where} starts as "
                               f"{d_in[0]} (line {init.lineno}) and the body returns {d_out[0]}",  # type: ignore[index]
                               why="carry input and output must have equal types")
                    return

    def _cond(self, call: ast.Call, ctx: Context, outer: DtypeOf) -> None:
        if len(call.args) < 3:
            return
        branches = [_function(ctx, a) for a in call.args[1:3]]
        if None in branches:
            return
        ops = [outer(a) for a in call.args[3:]]
        outs: list[tuple[ast.AST, Dtype | None]] = []
        for fn in branches:
            params = [a.arg for a in fn.args.args]  # type: ignore[union-attr]
            given = {p: (ops[i] if i < len(ops) else None) for i, p in enumerate(params)}
            inner = DtypeOf(fn, ctx.resolve, given)
            rets = _returns(fn)  # type: ignore[arg-type]
            dts = {inner(r) for r in rets}
            if len(rets) != 1 or len(dts) != 1:
                return
            outs.append((rets[0], dts.pop()))
        (r1, d1), (r2, d2) = outs
        if _differ(d1, d2):
            ctx.report(self, call, what=f"`lax.cond` branches return {d1[0]} (line {r1.lineno}) and {d2[0]} "  # type: ignore[index]
                       f"(line {r2.lineno})", why="cond branches must have equal output types")


def _differ(a: Dtype | None, b: Dtype | None) -> bool:
    """Both strong and known, and not equal: a weak side is promoted by JAX to the other's dtype."""
    return a is not None and b is not None and not a[1] and not b[1] and a[0] != b[0]


def _pairs(init: ast.AST, dt: DtypeOf) -> list[Dtype | None] | None:
    return [dt(e) for e in init.elts] if isinstance(init, ast.Tuple) else None


def _function(ctx: Context, arg: ast.AST) -> ast.Lambda | ast.FunctionDef | None:
    """The body a call is given: a lambda, or a def of the enclosing function (or of the module) by name."""
    if isinstance(arg, ast.Lambda):
        return arg
    if not isinstance(arg, ast.Name):
        return None
    for frame in reversed(ctx.frames):
        stmts = ctx.tree.body if frame.node is None else getattr(frame.node, "body", [])
        if not isinstance(stmts, list):
            continue
        found = [s for s in stmts if isinstance(s, _DEFS) and s.name == arg.id]
        if found:
            fn = found[-1]
            return None if len(found) > 1 or fn.decorator_list or fn.args.vararg or fn.args.kwonlyargs else fn
        if frame.node is not None and (arg.id in frame.bound or arg.id in frame.params):
            return None  # bound otherwise in this frame: not a def we can see
    return None


def _returns(fn: ast.Lambda | ast.FunctionDef) -> list[ast.AST]:
    if isinstance(fn, ast.Lambda):
        return [fn.body]
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            if n.value is None:
                return []
            out.append(n.value)
        stack.extend(c for c in iter_child_nodes(n) if not isinstance(c, (*_DEFS, ast.Lambda, ast.ClassDef)))
    return out
