"""JS616 jit-option-names-nothing."""

from __future__ import annotations

import ast

from ...jaxmodel import known
from ..context import Context
from ..rule import Rule

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class JitOptionNamesNothing(Rule):
    """A jit's static or donated argument that the jitted function does not have.

    ## What it does
    Flags a ``static_argnames``/``donate_argnames`` entry that names no parameter of the jitted function
    (or a positional-only one), and a ``static_argnums``/``donate_argnums`` entry past its positional
    parameters, where the function is known: decorated (``@partial(jax.jit, static_argnames=...)`` with no
    other decorator between it and the ``def``), or a function of the module jitted by name
    (``jax.jit(step, static_argnums=2)``) whose ``def`` has no decorator (jit would check the decorator's
    wrapper) and is the name's only module binding (no ``for``/``with``/walrus/import/``del``/``global``
    rebinding), outside a class body that binds the name itself. A function taking ``**kwargs`` (names)
    or ``*args`` (positions) is not flagged.

    ## Why is this bad?
    ``jax.jit`` checks these options against the function's signature when it is built and raises
    ``ValueError`` ("Jitted function has invalid argnames {'order'} in static_argnames. Function does not
    take these args", "... has static_argnums=(3,), but only accepts 2 positional arguments"): with a
    decorator, at import (checked under real JAX). Older releases only warned and traced the argument
    meant to be static, so code written then often carries a stale name after a parameter was renamed.

    ## Example
    ```python
    @partial(jax.jit, static_argnames=("order",))
    def polynomial(x, y, *, p): ...
    ```

    ## Use instead
    ```python
    @jax.jit
    def polynomial(x, y, *, p): ...     # or name the parameter the option meant
    ```

    ## Fix safety
    No fix is offered: which parameter was meant is for the author to say.
    """

    code = "JS616"
    name = "jit-option-names-nothing"
    message = ("`{option}` of `{wrapper}` gives {got}, but `{function}` {lacks}: jit raises ValueError when it is "
               "built{where}; name a parameter of `{function}`, or drop the entry")
    severity = "error"
    confidence = "certain"
    nodes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Call)
    traced_only = False
    calls = known.names(lambda t: t.options_checked_at_build)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, _DEFS):
            for i, dec in enumerate(node.decorator_list):
                if not isinstance(dec, ast.Call):
                    continue
                head = dec.func
                if (ctx.resolve(head) or "").endswith("partial") and dec.args:
                    head = dec.args[0]
                q = ctx.resolve(head)
                if q in _CHECKED and i == len(node.decorator_list) - 1:  # nothing between it and the def
                    where = " (at import: it decorates a module-level function)" if node in ctx.tree.body else ""
                    self._options(ctx, node, q, dec.keywords, where)
            return
        call: ast.Call = node  # type: ignore[assignment]
        q = ctx.resolve(call.func)
        if q in _CHECKED and call.args and isinstance(call.args[0], ast.Name):
            fn = _module_def(ctx, call.args[0].id)
            if fn is not None and ctx._local_frame(call.args[0].id) is None \
                    and not _in_class_binding(ctx.tree, call, call.args[0].id):
                self._options(ctx, fn, q, call.keywords, "")

    def _options(self, ctx: Context, fn: ast.AST, wrapper: str, keywords: list[ast.keyword], where: str) -> None:
        a: ast.arguments = fn.args  # type: ignore[attr-defined]
        positional = [p.arg for p in a.posonlyargs + a.args]
        named = {p.arg for p in a.args + a.kwonlyargs}
        posonly = {p.arg for p in a.posonlyargs}
        t = known.lookup(wrapper)
        options = (*t.static_options, *t.donate_options) if t else ()
        for kw in keywords:
            if kw.arg not in options:
                continue
            value = ctx.info.literal(kw.value)
            elts = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else [value]
            bad: list[tuple[ast.expr, str, str]] = []
            for e in elts:
                if not isinstance(e, ast.Constant) or isinstance(e.value, bool):
                    continue
                v = e.value
                if kw.arg.endswith("argnames") and isinstance(v, str) and a.kwarg is None and v not in named:
                    bad.append((e, f"the name {v!r}", "takes it positional-only" if v in posonly
                                else "has no parameter of that name"))
                elif kw.arg.endswith("argnums") and type(v) is int and a.vararg is None \
                        and not -len(positional) <= v < len(positional):
                    bad.append((e, f"the position {v}",
                                f"takes {len(positional)} positional argument{'s' * (len(positional) != 1)}"))
            if bad:  # one finding per option, naming every entry it lacks
                first = bad[0][0]
                at = first if any(first is n for n in ast.walk(kw.value)) else kw.value  # the literal, or its name
                ctx.report(self, at, option=kw.arg, wrapper=wrapper, function=fn.name,  # type: ignore[attr-defined]
                           got=" and ".join(b[1] for b in bad), lacks="; ".join(dict.fromkeys(b[2] for b in bad)),
                           where=where)


_CHECKED = known.names(lambda t: t.options_checked_at_build)


def _module_def(ctx: Context, name: str) -> ast.AST | None:
    """The module-level def ``name`` is bound to, when nothing else binds that module name: no other
    module-level store of any kind (assignment, ``for``, ``with``, walrus, import, ``except ... as``,
    ``del``), no ``global`` of it in any function, and no decorator on the def (a decorator may return a
    function of another signature; jit then checks that one)."""
    found = [s for s in ctx.tree.body if isinstance(s, _DEFS) and s.name == name]
    if len(found) != 1 or found[0].decorator_list:
        return None
    if name in ctx.info.reassigned_in_functions:  # every `global` statement of the module (lint/scope.py)
        return None
    for n in _module_scope_nodes(ctx.tree):
        if n is found[0]:
            continue
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)) \
                or isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name \
                or isinstance(n, (*_DEFS, ast.ClassDef)) and n.name == name \
                or isinstance(n, ast.ExceptHandler) and n.name == name \
                or getattr(n, "name", None) == name and type(n).__name__ in ("MatchAs", "MatchStar") \
                or type(n).__name__ == "MatchMapping" and getattr(n, "rest", None) == name:
            return None
    return found[0]


def _module_scope_nodes(tree: ast.Module):
    """The nodes whose bindings go to the module scope: the module's statements, without the bodies of
    functions, lambdas and classes (their names are theirs), but with comprehensions (a walrus there binds
    in the module; their own targets are harmless extra caution)."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (*_DEFS, ast.Lambda)):
            todo.extend([*n.decorator_list] if not isinstance(n, ast.Lambda) else [])
            todo.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        if isinstance(n, ast.ClassDef):
            todo.extend([*n.decorator_list, *n.bases, *n.keywords])
            continue
        todo.extend(ast.iter_child_nodes(n))


def _in_class_binding(tree: ast.Module, call: ast.AST, name: str) -> bool:
    """Whether ``call`` runs in a class body that binds ``name`` itself (there the name is the class's)."""
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        body: list[ast.AST] = []
        todo: list[ast.AST] = list(cls.body)
        while todo:  # the class's own scope: not into nested functions, lambdas or classes
            n = todo.pop()
            body.append(n)
            if not isinstance(n, (*_DEFS, ast.Lambda, ast.ClassDef)):
                todo.extend(ast.iter_child_nodes(n))
        if any(n is call for n in body) and any(
                isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                or isinstance(n, (*_DEFS, ast.ClassDef)) and n.name == name
                or isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name for n in body):
            return True
    return False
