"""Functions passed as values and called inside a trace: a sampler's or solver's step function.

``run(step_fn, state, n)`` whose ``lax.fori_loop`` body calls ``step_fn(s)`` traces whatever function its caller
passes: ``run(mh_step, x, 10)`` makes ``mh_step`` traced with the arguments the body gives it, although no
call of ``mh_step`` appears in traced code. Likewise a registry: ``STEPS = {"mh": mh_step, ...}`` at module level
and ``STEPS[name](s)`` (or ``step = STEPS[name]`` then ``step(s)``) in traced code may call any of its values.

``ValueCallEdges`` records, while the walk is in traced code, each call of a parameter of a module-level function
(from that function or a function nested in it, such as a loop body) and each call through a module-level dict
of functions; ``resolve`` turns them into call-graph edges: for a parameter, to the function every call of the
module-level function in the module passes there (a name, an imported name, ``partial(g, a)``); for a registry,
to each of its values. The function passed may be called elsewhere too, so such a way is a may fact
(``closed=False``): a warning at most. Checked under real ``jax.jit`` in tests/test_lint_operator_routes.py.
"""

from __future__ import annotations

import ast
import os

from . import facts
from .astutil import ast_walk
from .callgraph import OutgoingCall, _annotated_class, _enclosing_class, _record, _with, index
from .context import Context
from .rule import Rule


class ValueCallEdges(Rule):
    """Internal hook (not a catalog rule): calls of function values (parameters, registry entries) in traced code."""

    code = "JS000"
    name = "value-call-edges"
    nodes = (ast.Call,)
    traced_only = True

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        func = call.func
        if type(func) is ast.Subscript:
            reg = _registry(ctx, func)  # type: ignore[arg-type]
            key: tuple = ("registry", reg)
        elif type(func) is ast.Name:
            owner = ctx._local_frame(func.id)  # type: ignore[attr-defined]
            if owner is None:
                return  # a module-level function or an import: the call graph's (lint/callgraph.py)
            fn = owner.node
            if func.id in owner.params:  # type: ignore[attr-defined]
                ok = fn is not None and index(ctx).functions.get(getattr(fn, "name", "")) is fn
                key, reg = ("param", getattr(fn, "name", ""), func.id), "param" if ok else ""  # type: ignore[attr-defined]
            else:
                reg = _bound_registry(ctx, fn, func.id)  # type: ignore[attr-defined]
                key = ("registry", reg)
        elif type(func) is ast.Attribute:
            key = _constructor_slot(ctx, func)  # type: ignore[arg-type]
            reg = "ctor" if key else ""
        else:
            return
        calls: dict = ctx.table((resolve, "calls"))
        if not reg or key in calls:
            return
        if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
            return
        pos = tuple(i for i, a in enumerate(call.args) if ctx.is_traced(a))
        kws = tuple(k.arg for k in call.keywords if k.arg and ctx.is_traced(k.value))
        calls[key] = OutgoingCall("", traced=pos, keywords=kws, staged=facts.staged(ctx), closed=False,
                                  via=f"`{ctx.frame.name}` ({os.path.basename(ctx.filename)}:{call.lineno}) calls it "
                                      "as a value")


def _constructor_slot(ctx: Context, func: ast.Attribute) -> tuple:
    """``self.step_fn(s)`` (or ``kernel.step(s)`` with ``kernel: Kernel``) where the attribute holds what the class's
    constructor was given: ``self.step_fn = step_fn`` in ``__init__``, or a field of a dataclass / NamedTuple /
    Module (``step: Callable``), in order. The key names the class and the constructor's slot, else ()."""
    base = func.value
    if type(base) is not ast.Name:
        return ()
    idx = index(ctx)
    cls = _enclosing_class(ctx) if base.id == "self" else _annotated_class(ctx, base.id)
    if cls is None or cls not in idx.classes or func.attr in idx.methods.get(cls, {}):
        return ()
    init = idx.methods[cls].get("__init__")
    if init is not None:
        params = [p.arg for p in init.args.posonlyargs + init.args.args][1:]
        for n in ast_walk(init):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Name) \
                    and n.value.id in params and _self_attr(n.targets[0], func.attr):
                return ("ctor", cls, n.value.id, params.index(n.value.id))
        return ()
    fields = [s.target.id for s in idx.classes[cls].body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    if func.attr in fields:
        return ("ctor", cls, func.attr, fields.index(func.attr))
    return ()


def _self_attr(node: ast.AST, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _registries(ctx: Context) -> dict[str, list[ast.AST]]:
    """Module-level names bound once to a dict literal whose values are all module functions (or imported names)."""
    return ctx.memo(_find_registries)


def _find_registries(ctx: Context) -> dict[str, list[ast.AST]]:
    idx = index(ctx)
    counts: dict[str, int] = {}
    out: dict[str, list[ast.AST]] = {}
    for st in ctx.tree.body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name):
                counts[t.id] = counts.get(t.id, 0) + 1
                v = st.value
                if isinstance(v, ast.Dict) and v.values and all(
                        isinstance(x, ast.Name) and (x.id in idx.functions or x.id in idx.relative) for x in v.values):
                    out[t.id] = list(v.values)
    return {k: v for k, v in out.items() if counts.get(k) == 1}


def _registry(ctx: Context, sub: ast.Subscript) -> str:
    v = sub.value
    if type(v) is ast.Name and ctx._local_frame(v.id) is None and v.id in _registries(ctx):  # type: ignore[attr-defined]
        return v.id  # type: ignore[attr-defined]
    return ""


def _bound_registry(ctx: Context, fn: ast.AST | None, name: str) -> str:
    """``step = STEPS[name]`` on every binding of ``name`` in ``fn``: the registry, else ""."""
    if fn is None:
        return ""
    found = ""
    for n in ast_walk(fn):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            if len(n.targets) != 1 or not isinstance(n.value, ast.Subscript):
                return ""
            reg = _registry(ctx, n.value)
            if not reg or (found and reg != found):
                return ""
            found = reg
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            if any(isinstance(t, ast.Name) and t.id == name for t in ast_walk(
                    n.target if not isinstance(n, ast.With) else n)):
                return ""
    return found


def _calls_by_name(ctx: Context) -> dict[str, list[ast.Call]]:
    out: dict[str, list[ast.Call]] = {}
    for n in ast_walk(ctx.tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            out.setdefault(n.func.id, []).append(n)
    return out


def resolve(ctx: Context) -> None:
    """Queue (``ctx.cg_local``/``cg_outgoing``) the functions the recorded value calls reach; each record once."""
    calls: dict = ctx.table((resolve, "calls"))
    done: dict = ctx.table((resolve, "done"))
    idx = index(ctx)
    for key, edge in list(calls.items()):
        if key in done:
            continue
        done[key] = None
        if key[0] == "registry":
            for v in _registries(ctx)[key[1]]:
                _record(ctx, v, _with(edge, via=f"{edge.via} through the registry `{key[1]}`"))
            continue
        if key[0] == "ctor":
            _, fname, param, at = key
            what = f"the `{param}` a `{fname}` is built with"
        else:
            _, fname, param = key
            a = idx.functions[fname].args
            positional = [p.arg for p in a.posonlyargs + a.args]
            at = positional.index(param) if param in positional else None
            what = f"`{fname}` calls its parameter `{param}`"
        for call in ctx.memo(_calls_by_name).get(fname, ()):
            arg = call.args[at] if at is not None and at < len(call.args) and not any(
                type(x) is ast.Starred for x in call.args[:at + 1]) else next(
                (k.value for k in call.keywords if k.arg == param), None)
            if arg is None or not (isinstance(arg, ast.Name) or (isinstance(arg, ast.Call) and isinstance(
                    arg.func, ast.Name) and (ctx.resolve(arg.func) or "").endswith("partial"))):
                continue
            via = f"{edge.via}: {what}, given it at line {call.lineno}"
            _record(ctx, arg, _with(edge, via=via, sites=frozenset({(call.lineno, call.col_offset)})))
