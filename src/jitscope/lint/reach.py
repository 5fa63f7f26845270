"""Following the call graph: walking, as traced, the functions that recorded calls reach.

``lint/callgraph.py`` records the calls; ``follow`` walks the module functions they reach
(and the ``__call__`` of equinox/Flax module classes, and the derivative rules of traced
``custom_jvp``/``custom_vjp`` functions) with the traced parameters the calls imply, round by
round; ``resolve_incoming`` turns calls from other files into functions of this module, and
``class_bases`` summarises the module's classes for overrides across files (``lint/traced.py``).
"""

from __future__ import annotations

import ast

from .callgraph import (
    _LIBRARY_HEADS,
    CONVENTION,
    MAX_ROUNDS,
    MODULE_BASES,
    CallEdges,
    OutgoingCall,
    _method,
    _with,
    index,
)
from .context import Context
from .rule import Rule
from .scope import StaticSpec, decorator_spec


def spec_for(fn: ast.FunctionDef | ast.AsyncFunctionDef, edge: OutgoingCall, method: bool) -> StaticSpec:
    """The StaticSpec a call implies for ``fn``: only the parameters that received traced values are traced."""
    a = fn.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    if method and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    every = set(positional) | {p.arg for p in a.kwonlyargs}
    if edge.traced is None:
        static = {positional[i] for i in edge.static_positions if -len(positional) <= i < len(positional)}
        static |= set(edge.static_names)
    else:
        traced = {positional[i] for i in edge.traced if i < len(positional)} | (set(edge.keywords) & every)
        static = every - traced
    return StaticSpec(argnames=tuple(sorted(static)), wrapper=edge.wrapper, filter=edge.filter, via=edge.via,
                      assumed=edge.wrapper == CONVENTION)


def already_traced(ctx: Context, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Did the main walk already treat ``fn`` as traced (a decorator, a wrapper call)?"""
    if any(decorator_spec(ctx.info, d) is not None for d in fn.decorator_list):
        return True
    return ctx.info.traced_spec(0, fn.name) is not None


def module_calls(ctx: Context) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, OutgoingCall, bool]]:
    """``__call__`` of equinox/Flax/nnx module classes: traced by convention, every input possibly an array."""
    out = []
    idx = index(ctx)
    for cname, cls in idx.classes.items():
        if any((ctx.info.resolve(b) or "") in MODULE_BASES for b in cls.bases):
            m = idx.methods[cname].get("__call__")
            if m is not None:
                via = f"`{cname}` is an equinox/Flax module: its `__call__` runs under its caller's jit or grad"
                out.append((m, OutgoingCall("", traced=None, filter=True, wrapper=CONVENTION, via=via), True))
    return out


def follow(ctx: Context, visitor_cls: type, rules: list[Rule],
           start: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, OutgoingCall, bool]] | None = None,
           conventions: bool = True) -> None:
    """Walk the module functions reached by recorded calls, as traced, until no new one is reached.

    Only ``traced_only`` rules run (the others already saw these functions in the main walk).
    ``start`` adds calls from other modules (``lint/traced.py``); ``conventions`` adds the
    ``__call__`` of module classes (once per module: the first pass).
    """
    pending = list(start or []) + (module_calls(ctx) if conventions else []) + ctx.__dict__.pop("_cg_local", [])
    idx = index(ctx)
    if idx.rules and conventions:
        pending += _derivative_rules(ctx, [idx.functions[n] for n in idx.rules
                                           if n in idx.functions and already_traced(ctx, idx.functions[n])])
    if not pending:
        return
    hooks = [r for r in rules if r.traced_only] + [CallEdges()]
    visitor = visitor_cls(ctx, hooks)
    done: set[int] = ctx.__dict__.setdefault("_cg_done", set())
    rounds = 0
    while pending and rounds < MAX_ROUNDS:
        rounds += 1
        merged: dict[int, tuple[ast.AST, OutgoingCall, bool]] = {}
        for fn, edge, method in pending:
            if id(fn) in done or already_traced(ctx, fn):
                continue
            if id(fn) in merged:  # several callers: a parameter any of them passes traced is traced
                prev = merged[id(fn)][1]
                if prev.traced is not None and edge.traced is not None:
                    edge = _with(prev, traced=tuple(sorted(set(prev.traced) | set(edge.traced))),
                                 keywords=tuple(sorted(set(prev.keywords) | set(edge.keywords))))
                else:
                    edge = prev if prev.traced is None else edge
            merged[id(fn)] = (fn, edge, method)
        pending = []
        for fn, edge, method in merged.values():
            done.add(id(fn))
            visitor.forced[id(fn)] = spec_for(fn, edge, method)  # type: ignore[arg-type]
            frames, parents = ctx.frames, ctx.parents
            ctx.frames, ctx.parents = [frames[0]], []
            try:
                visitor.visit(fn)
            finally:
                ctx.frames, ctx.parents = frames, parents
        pending = ctx.__dict__.pop("_cg_local", [])
        pending += _derivative_rules(ctx, [fn for fn, _, _ in merged.values()])



def _derivative_rules(ctx: Context, traced: list) -> list[tuple[ast.AST, OutgoingCall, bool]]:
    """The custom_jvp/custom_vjp rules (``f.defjvp(f_jvp)``) of traced functions: traced with them."""
    idx = index(ctx)
    out: list[tuple[ast.AST, OutgoingCall, bool]] = []
    for fn in traced:
        for rule in idx.rules.get(getattr(fn, "name", ""), ()):
            if rule in idx.functions:
                via = f"it is a derivative rule of `{fn.name}`, which is traced"
                out.append((idx.functions[rule], OutgoingCall("", traced=None, via=via), False))
    return out


def resolve_incoming(ctx: Context, calls: list[tuple[str, OutgoingCall]]
                     ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, OutgoingCall, bool]]:
    """Defs of this module named by calls from other modules (``"f"`` or ``"Class.method"``); a name
    this module only imports (a package ``__init__`` re-export) is passed on as an outgoing call."""
    idx = index(ctx)
    out = []
    for name, edge in calls:
        head, _, rest = name.partition(".")
        if not rest and head in idx.functions:
            out.append((idx.functions[head], edge, False))
        elif rest and "." not in rest and head in idx.classes:
            _method(ctx, head, rest, edge, set())
        elif head in idx.relative:
            level, target = idx.relative[head]
            ctx.__dict__.setdefault("cg_outgoing", []).append(
                _with(edge, target=f"{target}.{rest}" if rest else target, level=level))
        elif head in ctx.info.aliases:
            q = ctx.info.aliases[head]
            ctx.__dict__.setdefault("cg_outgoing", []).append(_with(edge, target=f"{q}.{rest}" if rest else q))
    return out + ctx.__dict__.pop("_cg_local", [])


def class_bases(ctx: Context) -> list[tuple[str, list[tuple[int, str]]]]:
    """Each module-level class with its bases as (relative level, dotted name), for finding subclasses
    across modules (``lint/traced.py``); classes whose bases are all builtins or library classes are left out."""
    idx = index(ctx)
    out = []
    for name, cls in idx.classes.items():
        bases: list[tuple[int, str]] = []
        for b in cls.bases:
            if isinstance(b, ast.Name) and b.id in idx.relative:
                bases.append(idx.relative[b.id])
            elif isinstance(b, ast.Name) and b.id in idx.classes:
                bases.append((-1, b.id))
            else:
                q = ctx.info.resolve(b)
                if q and not q.startswith(".") and q.split(".")[0] not in _LIBRARY_HEADS and "." in q:
                    bases.append((0, q))
        if bases:
            out.append((name, bases))
    return out
