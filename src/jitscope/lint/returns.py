"""What a module-level function hands back, read from its ``return`` statements, for its callers' dataflow.

A helper that builds a boolean mask with ``jax.numpy`` (``return jnp.arange(n) < k``) returns a tracer
whenever staged code calls it, whatever it is given: under jit every ``jnp`` operation is staged, so
``x[make_mask(n, k)]`` in a jitted function is boolean indexing with a traced mask
(NonConcreteBooleanIndexError), although ``n`` and ``k`` are Python values. Eagerly the same call gives a
concrete array and the indexing works; a NumPy mask works everywhere (docs/lint.md, "Staged helpers").
"""

from __future__ import annotations

import ast

from .astutil import ast_walk, iter_child_nodes

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_BITS = (ast.BitAnd, ast.BitOr, ast.BitXor)


def returns_jnp_mask(ctx, name: str, mask_funcs: frozenset[str], static_calls: frozenset[str]) -> bool:
    """Does the module-level function ``name`` return, on every ``return``, a boolean array made by ``jnp``?"""
    cache = ctx.table(returns_jnp_mask)
    got = cache.get(name)
    if got is None:
        fn = next((s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and s.name == name), None)
        got = cache[name] = fn is not None and not fn.decorator_list and _every_return_a_mask(
            ctx, fn, mask_funcs, static_calls)
    return got


def _every_return_a_mask(ctx, fn, mask_funcs, static_calls) -> bool:
    returns, bound, stack = [], {}, list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, _NESTED):
            continue
        if isinstance(n, ast.Return):
            returns.append(n.value)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            bound.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
            bound.setdefault(n.target.id, []).append(None)
        stack.extend(iter_child_nodes(n))
    return bool(returns) and all(v is not None and _mask(ctx, v, bound, mask_funcs, static_calls, 0) for v in returns)


def _mask(ctx, v, bound, mask_funcs, static_calls, depth: int) -> bool:
    if depth > 4:
        return False
    t = type(v)
    if t is ast.Compare:
        if any(type(op) in (ast.Is, ast.IsNot, ast.In, ast.NotIn) for op in v.ops):
            return False
        return any(_jnp_made(ctx, o, bound, static_calls, depth) for o in (v.left, *v.comparators))
    if t is ast.UnaryOp and type(v.op) is ast.Invert:
        return _mask(ctx, v.operand, bound, mask_funcs, static_calls, depth + 1)
    if t is ast.BinOp and type(v.op) in _BITS:
        return _mask(ctx, v.left, bound, mask_funcs, static_calls, depth + 1) and _mask(
            ctx, v.right, bound, mask_funcs, static_calls, depth + 1)
    if t is ast.Call:
        return (ctx.resolve(v.func) or "") in mask_funcs
    if t is ast.Name:
        values = bound.get(v.id)
        return bool(values) and len(values) == 1 and values[0] is not None and _mask(
            ctx, values[0], bound, mask_funcs, static_calls, depth + 1)
    return False


def _jnp_made(ctx, node, bound, static_calls, depth: int) -> bool:
    """Is ``node`` computed by a ``jax.numpy`` operation (``jnp.arange(n)``, ``jnp.arange(n)[:, None]``, a local
    bound once to one)?"""
    for n in ast_walk(node):
        if type(n) is ast.Call:
            q = ctx.resolve(n.func) or ""
            if q.startswith("jax.numpy.") and q not in static_calls:
                return True
        elif type(n) is ast.Name and depth < 4:
            values = bound.get(n.id)
            if values and len(values) == 1 and values[0] is not None and _jnp_made(
                    ctx, values[0], bound, static_calls, depth + 1):
                return True
    return False


def returned_values(ctx, name: str) -> list[ast.expr] | None:
    """What the module-level, undecorated, non-generator function ``name`` returns: the value of every ``return``
    of its own body, a local name read through its bindings (every one a plain ``name = value``), or None when
    some return is bare, falls off the end, or its value is not known that way. JS602 asks it whether
    ``run(x, make_config())`` passes a dict for a static argument on every call."""
    cache = ctx.table(returned_values)
    if name in cache:
        return cache[name]
    fn = next((s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name),
              None)
    out = None
    if fn is not None and not fn.decorator_list and isinstance(fn, ast.FunctionDef) and \
            sum(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.name == name
                for s in ctx.tree.body) == 1:
        out = _returns_of(fn)
    cache[name] = out
    return out


def _returns_of(fn) -> list[ast.expr] | None:
    returns, bound, stack = [], {}, list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, _NESTED):
            continue
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(n, ast.Return):
            returns.append(n.value)
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                for e in ast.walk(t):
                    if isinstance(e, ast.Name):
                        bound.setdefault(e.id, []).append(n.value if e is t else None)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                            ast.NamedExpr, ast.comprehension, ast.ExceptHandler, ast.Import, ast.ImportFrom,
                            ast.Global, ast.Nonlocal)):
            for e in ast.walk(n.target if hasattr(n, "target") and n.target is not None else n):
                if isinstance(e, ast.Name):
                    bound.setdefault(e.id, []).append(None)
        stack.extend(ast.iter_child_nodes(n))
    last = fn.body[-1] if fn.body else None
    if not returns or not isinstance(last, (ast.Return, ast.Raise)) or any(v is None for v in returns):
        return None  # falls off the end (None) on some path, or a bare return
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    out = []
    for v in returns:
        if isinstance(v, ast.Name):
            values = bound.get(v.id)
            if not values or v.id in params or any(x is None for x in values):
                return None
            out.extend(values)
        else:
            out.append(v)
    return out
