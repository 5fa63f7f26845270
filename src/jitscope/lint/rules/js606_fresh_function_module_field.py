"""JS606 fresh-function-module-field."""

from __future__ import annotations

import ast

from ...jaxmodel import families
from ..astutil import ast_walk
from ..callgraph import index
from ..context import Context
from ..rule import Rule
from ..traced import module_name

_INITS = frozenset({"__init__", "__post_init__"})


class FreshFunctionModuleField(Rule):
    """An equinox or nnx Module storing a function object made anew for every instance.

    ## What it does
    Flags, in ``__init__``/``__post_init__`` of a class deriving (directly, or through a class of the
    same module) from ``equinox.Module`` or ``flax.nnx.Module``, an assignment ``self.f = ...`` of a
    ``lambda``, a ``functools.partial(...)`` or a function defined in the method.

    ## Why is this bad?
    Such a Module's non-array attributes are the static part of its pytree (equinox) or of its
    GraphDef (nnx), and ``eqx.filter_jit``/``nnx.jit`` key their cache on them with ``==``. A lambda, a
    local function and a ``partial`` compare by identity, so every new instance is a new key: a jitted
    function given a freshly built Module traces and compiles again (checked under real
    ``filter_jit``/``nnx.jit``: one trace per instance, one in all when the instances share the
    object). It costs nothing for a Module built once; it recompiles whenever instances are rebuilt
    (per step, per hyper-parameter, per layer of a stack of identical layers).

    ## Example
    ```python
    class WeightNorm(eqx.Module):
        def __init__(self, axis):
            self._norm = ft.partial(jnp.linalg.norm, axis=axis)
    ```

    ## Use instead
    ```python
    class WeightNorm(eqx.Module):
        axis: int = eqx.field(static=True)

        def _norm(self, w):
            return jnp.linalg.norm(w, axis=self.axis)
    ```

    ## Fix safety
    No fix is offered: where the function's data should live is the program's choice.
    """

    code = "JS606"
    name = "fresh-function-module-field"
    message = ("`self.{attr}` of `{cls}` is {what} made anew for every instance: {family} keeps it in the "
               "Module's static part and jit compares it by identity, so each new instance traces and compiles "
               "the jitted functions it is passed to again; make it a method, or build it once (module level)")
    severity = "warning"
    nodes = (ast.ClassDef,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        cls: ast.ClassDef = node  # type: ignore[assignment]
        family = _family(ctx, cls, set())
        if family is None:
            return
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name not in _INITS:
                continue
            local_defs = {s.name for s in ast_walk(fn) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                          and s is not fn}
            for s in ast_walk(fn):
                if not isinstance(s, ast.Assign):
                    continue
                for t in s.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        what = _fresh(ctx, s.value, local_defs)
                        if what is not None:
                            ctx.report(self, s.value, attr=t.attr, cls=cls.name, what=what, family=family)


def _family(ctx: Context, cls: ast.ClassDef, seen: set[str]) -> str | None:
    """"equinox" or "nnx" when ``cls`` derives from a Module whose non-array fields key jit's cache."""
    for b in cls.bases:
        q = _qualified(ctx, b)
        if q in families.STATIC_FIELD_BASES:
            return "equinox" if q.startswith("equinox") else "nnx"
        if isinstance(b, ast.Name) and b.id not in seen:
            local = [s for s in ctx.tree.body if isinstance(s, ast.ClassDef) and s.name == b.id]
            if len(local) == 1:
                found = _family(ctx, local[0], seen | {cls.name})
                if found is not None:
                    return found
    return None


def _qualified(ctx: Context, base: ast.expr) -> str:
    """The base's qualified name; a relative import (``from .._module import Module`` inside equinox) made
    absolute from the file's package."""
    q = ctx.info.resolve(base) or ""
    if isinstance(base, ast.Name):
        rel = index(ctx).relative.get(base.id)
        if rel is not None:
            level, target = rel
            package = module_name(ctx.filename).split(".")[:-1]
            if level - 1 <= len(package):
                return ".".join([*package[:len(package) - (level - 1)], target])
    return q


def _fresh(ctx: Context, value: ast.AST, local_defs: set[str]) -> str | None:
    if isinstance(value, ast.Lambda):
        return "a lambda"
    if isinstance(value, ast.Call) and (ctx.resolve(value.func) or "").rpartition(".")[2] == "partial":
        return "a `partial`"
    if isinstance(value, ast.Name) and value.id in local_defs:
        return f"local function `{value.id}`"
    return None
