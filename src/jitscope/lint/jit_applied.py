"""How a project wrapper applies a jit to its parameter, and what one call of the wrapper makes of it.

``lint/wrappers.py`` records, for a parameter the wrapper jits (kind ``jitted``), ``application``: the jit,
its options (a literal, one of the wrapper's parameters, or the wrapper's own ``**kwargs``) and the one
condition on a parameter of the wrapper it runs under (``jax.jit(f) if jit else f``, ``if not use_jit:
return f``). ``gate_open`` reads that condition at a call (the literal passed, or the default) and
``spec_for_call`` the static options the call gives; ``lint/wrapped.py`` uses both.
"""

from __future__ import annotations

import ast

from .astutil import iter_child_nodes, own_nodes
from .scope import spec_from_call


def application(ctx, fn, call: ast.Call, q: str, where: str) -> tuple | None:
    """(jit, options, gate, where) for the jit call ``call`` in the wrapper ``fn``; None when its options
    cannot be read (``*args`` forwarded, a ``**`` of something else)."""
    a = fn.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    defaults: dict[str, ast.expr] = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None})
    params = set(positional) | {p.arg for p in a.kwonlyargs}
    keywords = list(call.keywords) + (list(call.func.keywords) if isinstance(call.func, ast.Call) else [])
    options: list[tuple] = []
    for x in call.args:
        if isinstance(x, ast.Starred):  # `jax.jit(f, *args)`: the wrapper's extra positionals, if a call gives any
            if not (a.vararg is not None and isinstance(x.value, ast.Name) and x.value.id == a.vararg.arg):
                return None
            options.append(("args", len(positional)))
    for k in keywords:
        if k.arg is None:
            if not (a.kwarg is not None and isinstance(k.value, ast.Name) and k.value.id == a.kwarg.arg):
                return None
            options.append(("kwargs",))
        elif isinstance(k.value, ast.Name) and k.value.id in params:
            p = k.value.id
            options.append(("param", k.arg, p, positional.index(p) if p in positional else None, defaults.get(p)))
        else:
            options.append(("lit", k.arg, k.value))
    return q, tuple(options), gate(fn, call, positional, defaults), where


def gate(fn, call: ast.Call, positional: list[str], defaults: dict) -> tuple | None:
    """The one condition the jit runs under, as (parameter, index, default, sense); None: none; (): unreadable."""
    parents: dict[ast.AST, ast.AST] = {}
    for n in own_nodes(*fn.body):
        for ch in iter_child_nodes(n):
            parents[ch] = n
    conds: list[tuple[ast.expr, bool] | None] = []
    child: ast.AST = call
    while child in parents:
        p = parents[child]
        if isinstance(p, (ast.If, ast.IfExp)) and child is not p.test:
            conds.append((p.test, child in p.body if isinstance(p, ast.If) else child is p.body))
        elif isinstance(p, (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.BoolOp, ast.comprehension)):
            conds.append(None)
        child = p
    top = child
    for s in fn.body if top in fn.body else ():  # `if not jit: return f` before the jit: it runs only when the test is false
        if s is top:
            break
        if isinstance(s, ast.If) and not s.orelse and s.body and isinstance(s.body[-1], (ast.Return, ast.Raise)):
            conds.append((s.test, False))
        elif not isinstance(s, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
                isinstance(n, (ast.Return, ast.Raise)) for n in own_nodes(s)):
            conds.append(None)
    if not conds:
        return None
    if len(conds) > 1 or conds[0] is None:
        return ()
    test, sense = conds[0]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, sense = test.operand, not sense
    params = set(positional) | {p.arg for p in fn.args.kwonlyargs}
    if not isinstance(test, ast.Name) or test.id not in params:
        return ()
    p = test.id
    return p, positional.index(p) if p in positional else None, defaults.get(p), sense


def portable(applied: tuple | None) -> tuple | None:
    """``applied`` as a caller that passes its own parameter on to the wrapper sees it: only a jit whose options
    are literals and that runs on every call keeps its meaning one function up."""
    if applied is None or applied[2] is not None or any(o[0] != "lit" for o in applied[1]):
        return None
    return applied


def argument(call: ast.Call, name: str, index: int | None, default: ast.expr | None) -> ast.expr | None | bool:
    """What ``call`` passes for the wrapper's parameter (its default when it passes nothing); False: unknowable."""
    for k in call.keywords:
        if k.arg == name:
            return k.value
    for i, x in enumerate(call.args):
        if isinstance(x, ast.Starred):
            return False
        if i == index:
            return x
    if any(k.arg is None for k in call.keywords):
        return False
    return default


def gate_open(gate: tuple, call: ast.Call) -> bool | None:
    """Does the jit run on this call: True, False, or None (unknown)?"""
    if not gate:
        return None
    name, index, default, sense = gate
    v = argument(call, name, index, default)
    if not isinstance(v, ast.Constant):
        return None
    return bool(v.value) == sense


def spec_for_call(info, call: ast.Call, applied: tuple, skip: set[str]):
    """The StaticSpec the jit gets on this call: its options, read where the call gives them."""
    q, options, _, _ = applied
    keywords = []
    for o in options:
        if o[0] == "args":
            if len(call.args) > o[1] or any(isinstance(x, ast.Starred) for x in call.args):
                return None  # positional options (jit's `in_shardings`, ...) the model does not read
        elif o[0] == "kwargs":
            keywords += [k for k in call.keywords if k.arg is not None and k.arg not in skip]
        elif o[0] == "param":
            v = argument(call, o[2], o[3], o[4])
            if v is False:
                return None
            if v is not None:
                keywords.append(ast.keyword(arg=o[1], value=v))
        else:
            keywords.append(ast.keyword(arg=o[1], value=o[2]))
    return spec_from_call(info, ast.Call(func=ast.Name(id="jit"), args=[], keywords=keywords), q)
