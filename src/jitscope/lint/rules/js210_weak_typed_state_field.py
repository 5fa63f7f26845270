"""JS210 weak-typed-state-field."""

from __future__ import annotations

import ast
from itertools import repeat

from ...jaxmodel.dtypes import Dtype, DtypeOf
from .. import pytrees
from ..astutil import ast_walk, iter_child_nodes
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
    against its ``step``. Not flagged: a Python number in one branch of a ``lax.cond`` whose other branch
    gives the field anything but a Python number (a typed array, or the operand passed through:
    ``lax.cond(done, restart, lambda s: s, s)``): cond joins its branches' output types, so the weak ``int32[]``
    is promoted to the other's and no weak leaf leaves the cond (checked under real JAX 0.6.2-0.12: one
    compile; a weak operand is itself a weak site, flagged where it is built). Two weak branches stay weak and
    are still flagged.

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
    found: list[tuple[tuple, ast.AST, Dtype]] = []
    where: dict[ast.AST, ast.AST] = {}  # value -> innermost def or lambda it is made in
    for top in ctx.tree.body:
        owner = top.name if isinstance(top, ast.ClassDef) else None
        _visit(ctx, top, owner, classes, found, where)
    branches = _cond_branches(ctx)
    weak_in: dict[tuple, set[tuple[ast.AST, int]]] = {}  # key -> (cond call, branch) that gives it a Python number
    for key, value, d in found:
        if d[1] and where.get(value) in branches:
            weak_in.setdefault(key, set()).update(branches[where[value]])
    for key, value, d in found:
        if d[1] and any(any((c, j) not in weak_in.get(key, ()) for j in range(2) if j != i)
                        for c, i in branches.get(where.get(value), ())):  # type: ignore[arg-type]
            continue  # another branch of the cond gives the field something else: cond's join makes it typed
        got.setdefault(key, []).append((value, d))
    return got


def _visit(ctx: Context, top: ast.AST, owner: str | None, classes: dict, found: list, where: dict) -> None:
    """One walk of a top-level statement (a stack, not recursion: expressions can nest deeply): each call of a
    state class read in its innermost enclosing def. A weak site in a ``lax.cond`` branch whose other branch gives
    the field a typed array is left out by the caller: cond joins its branches' output types, so no weak leaf
    leaves it."""
    envs: dict[ast.AST, DtypeOf] = {}
    stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None]] = [(top, None, None)]
    while stack:
        node, fn, inner = stack.pop()
        if isinstance(node, _DEFS):
            fn = inner = node
        elif isinstance(node, ast.Lambda):
            inner = node
        elif (fn is not None and isinstance(node, ast.Call) and type(node.func) is ast.Name
                and node.func.id in classes and node.keywords
                and node.func.id not in {a.arg for a in fn.args.args}):  # type: ignore[attr-defined]
            dt = envs.get(fn)
            if dt is None:
                dt = envs[fn] = DtypeOf(fn, ctx.info.resolve)
            for kw in node.keywords:
                d = dt(kw.value) if kw.arg else None
                if d is not None and (not d[1] or isinstance(kw.value, (ast.Constant, ast.UnaryOp))):
                    found.append(((owner, node.func.id, kw.arg), kw.value, d))
                    if inner is not None:
                        where[kw.value] = inner
        stack += zip(iter_child_nodes(node), repeat(fn), repeat(inner))


def _cond_branches(ctx: Context) -> dict[ast.AST, list[tuple[ast.AST, int]]]:
    """The defs and lambdas passed as branches of a ``lax.cond`` of the module -> [(the cond call, which branch)]."""
    return ctx.memo(_find_cond_branches)


def _find_cond_branches(ctx: Context) -> dict[ast.AST, list[tuple[ast.AST, int]]]:
    defs: dict[str, list[ast.AST]] = {}
    conds = []
    for n in ast_walk(ctx.tree):
        if isinstance(n, _DEFS):
            defs.setdefault(n.name, []).append(n)
        elif isinstance(n, ast.Call) and ctx.info.resolve(n.func) == "jax.lax.cond":
            conds.append(n)
    out: dict[ast.AST, list[tuple[ast.AST, int]]] = {}
    for c in conds:
        given = dict(enumerate(c.args[1:3]))
        given.update({i: k.value for k in c.keywords for i, name in enumerate(("true_fun", "false_fun"))
                      if k.arg == name})
        for i, b in given.items():
            for target in [b] if isinstance(b, ast.Lambda) else defs.get(b.id, []) if isinstance(b, ast.Name) else []:
                out.setdefault(target, []).append((c, i))
    return out
