"""Caches that keep what a trace computed: caching descriptors (``lazy_property``, ``functools.cached_property``)
and ``functools.lru_cache``/``cache`` on functions that compute with JAX (JS405, JS406; docs/lint.md, "Caches")."""

from __future__ import annotations

import ast

from ..astutil import ast_walk, iter_child_nodes
from ..context import ARRAY_NAMESPACES, STATIC_CALLS, Context

_DICT_OF = frozenset({"vars"})
CACHED_PROPERTIES = frozenset({"functools.cached_property"})
CACHED_FUNCTIONS = frozenset({"functools.lru_cache", "functools.cache"})


def imports_jax(ctx: Context) -> bool:
    return any(q == "jax" or q.startswith("jax.") for q in ctx.info.module_aliases.values())


def unguarded_store(fn: ast.FunctionDef, node: ast.AST, parents: list[ast.AST]) -> ast.AST | None:
    """In a descriptor's ``__get__`` (``fn``), the target of ``node`` when it caches the wrapped method's value on
    the instance with no test of that value first: ``setattr(instance, name, value)``, ``instance.__dict__[name] =
    value`` or ``vars(instance)[name] = value``. ``parents``: the nodes enclosing ``node`` inside ``fn``."""
    owner, instance = fn.args.args[0].arg, fn.args.args[1].arg
    if isinstance(node, ast.Call):
        if not (isinstance(node.func, ast.Name) and node.func.id == "setattr" or isinstance(node.func, ast.Attribute)
                and node.func.attr == "__setattr__" and _is_name(node.func.value, "object")):
            return None
        if len(node.args) != 3 or not _is_name(node.args[0], instance):
            return None
        value, target = node.args[2], node
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if not (isinstance(target, ast.Subscript) and _instance_dict(target.value, instance)):
            return None
        value = node.value
    else:
        return None
    if _cached_call(fn, value, owner, instance) is None or _guarded(parents, value):
        return None
    return target


def cached_method(fn: ast.FunctionDef, node: ast.AST) -> str:
    """``self.wrapped``: the descriptor's function whose value ``node`` stores (after ``unguarded_store``)."""
    value = node.args[2] if isinstance(node, ast.Call) else node.value  # type: ignore[attr-defined]
    return _cached_call(fn, value, fn.args.args[0].arg, fn.args.args[1].arg) or ""


def caching_descriptor(cls: ast.ClassDef) -> bool:
    """Does ``cls`` define a ``__get__`` that caches the wrapped method's value on the instance, unguarded?"""
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "__get__" and len(fn.args.args) >= 2:
            if any(unguarded_store(fn, n, ps) is not None for n, ps in _walk(fn, [])):
                return True
    return False


def _walk(node: ast.AST, parents: list[ast.AST]):
    for child in iter_child_nodes(node):
        yield child, parents + [node]
        yield from _walk(child, parents + [node])


def computes_with_jax(ctx: Context, fn: ast.AST) -> bool:
    """Does ``fn``'s body call into JAX's array namespaces (``jnp.*``, ``lax.*``, ``jax.random.*``) outside
    ``jax.ensure_compile_time_eval()``? Under a trace such a call gives a tracer; shape and dtype queries do not."""
    for n, ps in _walk(fn, []):
        if isinstance(n, ast.Call):
            q = ctx.resolve(n.func) or ""
            if q.startswith(ARRAY_NAMESPACES) and q not in STATIC_CALLS and not any(
                    isinstance(p, ast.With) and any("ensure_compile_time_eval" in ast.unparse(i.context_expr)
                                                    for i in p.items) for p in ps):
                return True
    return False


def decorated_with(ctx: Context, fn: ast.AST, names: frozenset[str]) -> bool:
    for d in getattr(fn, "decorator_list", ()):
        target = d.func if isinstance(d, ast.Call) else d
        if (ctx.resolve(target) or "") in names:
            return True
    return False


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _instance_dict(node: ast.AST, instance: str) -> bool:
    """``instance.__dict__`` or ``vars(instance)``."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return _is_name(node.value, instance)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _DICT_OF
            and len(node.args) == 1 and _is_name(node.args[0], instance))


def _cached_call(fn: ast.FunctionDef, value: ast.AST, owner: str, instance: str) -> str | None:
    """The descriptor's wrapped function (``self.wrapped``) when ``value`` is what calling it with the
    instance returned: the call itself, or a local name every other assignment of which reads the
    instance's cache (``val = getattr(obj, name, MISSING)``, ``obj.__dict__.get(name)``)."""
    values: list[ast.AST] = [value]
    if isinstance(value, ast.Name):
        values = [n.value for n in ast_walk(fn) if isinstance(n, ast.Assign)
                  and any(_is_name(t, value.id) for t in n.targets)]
    made = [v for v in values if _calls_wrapped(v, owner, instance)]
    if not made or any(v not in made and not any(_is_name(n, instance) for n in ast_walk(v)) for v in values):
        return None
    return f"{owner}.{made[0].func.attr}"  # type: ignore[attr-defined]


def _calls_wrapped(node: ast.AST, owner: str, instance: str) -> bool:
    """``self.wrapped(instance, ...)``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_name(node.func.value, owner)
            and bool(node.args) and _is_name(node.args[0], instance))


def _guarded(parents: list[ast.AST], value: ast.AST) -> bool:
    """Is the store under an ``if`` whose test reads the value after it was computed (``if not_jax_tracer(
    value):``)? An ``if`` that computes the value in its own body (``if val is Uninitialized: val = ...``)
    tests the old cache entry, not what is stored."""
    if not isinstance(value, ast.Name):
        return False
    for p in parents:
        if isinstance(p, (ast.If, ast.While)) and any(_is_name(n, value.id) for n in ast_walk(p.test)):
            if not any(_stores(n, value.id) for s in p.body for n in ast_walk(s)):
                return True
    return False


def _stores(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Assign):
        return any(_is_name(t, name) for tgt in node.targets for t in ast_walk(tgt))
    return isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and _is_name(node.target, name)
