"""JS210 weak-typed-state-field."""

from __future__ import annotations

import ast
from itertools import repeat

from ...jaxmodel.dtypes import Dtype, DtypeOf
from .. import pytrees
from ..astutil import iter_child_nodes
from ..context import Context
from ..rule import Rule

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class WeakTypedStateField(Rule):
    """A pytree state built with a Python number for a field that other code of the module fills with a typed array.

    ## What it does
    Flags, in a call of a pytree class of the module (a flax ``struct.dataclass``, a chex dataclass, a
    ``NamedTuple``, ...), a field given a Python ``int`` or ``float`` literal (``time=0``) when another call
    of the same class in the module gives that field a value of a stated dtype (``time=jnp.int32(t + 1)``,
    ``jnp.zeros((), jnp.int32)``, ``x.astype(jnp.float32)``): typically an environment's ``reset``
    against its ``step``.

    ## Why is this bad?
    A Python number passed into jit is a *weakly typed* leaf (``~int32[]``), a typed array a strong one
    (``int32[]``); the weak flag is part of jit's cache key. A jitted step fed the reset state and then
    its own output traces and compiles twice (checked under real JAX: two compiles, one with both sites
    typed), and ``lax`` loops or ``cond`` that mix the two see different types. It is a warning: the
    cost appears only when both states reach the same jitted function.

    ## Example
    ```python
    def reset(key):
        return EnvState(pos=jnp.zeros(2), time=0)
    def step(state, a):
        return EnvState(pos=state.pos + a, time=jnp.int32(state.time + 1))
    ```

    ## Use instead
    ```python
    def reset(key):
        return EnvState(pos=jnp.zeros(2), time=jnp.int32(0))
    ```

    ## Fix safety
    No fix is offered: which dtype the field should have is the program's choice.
    """

    code = "JS210"
    name = "weak-typed-state-field"
    message = ("`{cls}` field `{field}` is given a Python {kind} here (a weakly typed leaf under jit) and a "
               "typed {dtype} array at line {line}: a jitted function fed both states compiles twice; build it as "
               "`jnp.{dtype}({value})`")
    severity = "warning"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        if type(call.func) is not ast.Name or not call.keywords:
            return
        if not any(isinstance(k.value, (ast.Constant, ast.UnaryOp)) for k in call.keywords):
            return  # only a Python number is a weak site: the module's sites are gathered only then
        cls = pytrees.module_classes(ctx).get(call.func.id)
        if cls is None or not pytrees.is_pytree(ctx, cls):
            return
        sites = _sites(ctx)
        top = next((s for s in ctx.tree.body if s.lineno <= call.lineno <= (s.end_lineno or s.lineno)), None)
        owner = top.name if isinstance(top, ast.ClassDef) else None
        for kw in call.keywords:
            got = sites.get((owner, call.func.id, kw.arg))
            if not got:
                continue
            mine = next((d for n, d in got if n is kw.value), None)
            if mine is None or not mine[1]:
                continue
            strong = next(((n, d) for n, d in got if not d[1]), None)
            if strong is not None:
                ctx.report(self, kw.value, cls=call.func.id, field=kw.arg, kind=mine[0], dtype=strong[1][0],
                           line=strong[0].lineno, value=ctx.segment(kw.value))


def _sites(ctx: Context) -> dict[tuple[str | None, str, str | None], list[tuple[ast.AST, Dtype]]]:
    """(owner, class, field) -> the values of known dtype each call of a module pytree class gives that field.
    The owner is the module class whose methods make the call (an environment's ``reset`` and ``step``), or
    None for module-level functions: states built by two different classes need not meet one jitted function."""
    return ctx.memo(_find_sites)


def _find_sites(ctx: Context) -> dict:
    got: dict = {}
    classes = {name: cls for name, cls in pytrees.module_classes(ctx).items() if pytrees.is_pytree(ctx, cls)}
    if not classes:
        return got
    for top in ctx.tree.body:
        owner = top.name if isinstance(top, ast.ClassDef) else None
        _visit(ctx, top, owner, classes, got)
    return got


def _visit(ctx: Context, top: ast.AST, owner: str | None, classes: dict, got: dict) -> None:
    """One walk of a top-level statement (a stack, not recursion: expressions can nest deeply): each call of a
    state class read in its innermost enclosing def."""
    envs: dict[ast.AST, DtypeOf] = {}
    stack: list[tuple[ast.AST, ast.AST | None]] = [(top, None)]
    while stack:
        node, fn = stack.pop()
        if isinstance(node, _DEFS):
            fn = node
        elif (fn is not None and isinstance(node, ast.Call) and type(node.func) is ast.Name
                and node.func.id in classes and node.keywords
                and node.func.id not in {a.arg for a in fn.args.args}):  # type: ignore[attr-defined]
            dt = envs.get(fn)
            if dt is None:
                dt = envs[fn] = DtypeOf(fn, ctx.info.resolve)
            for kw in node.keywords:
                d = dt(kw.value) if kw.arg else None
                if d is not None and (not d[1] or isinstance(kw.value, (ast.Constant, ast.UnaryOp))):
                    got.setdefault((owner, node.func.id, kw.arg), []).append((kw.value, d))
        stack += zip(iter_child_nodes(node), repeat(fn))
