"""JS601 inplace-array-update."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule

_AT_METHOD = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power"}


class InplaceArrayUpdate(Rule):
    """In-place item assignment ``x[i] = v`` on a JAX array.

    ## What it does
    Flags ``x[i] = v`` and ``x[i] += v`` where ``x`` is a traced argument of a jitted
    function, or was created in the same function by a ``jax.numpy``/``jax.random``/``lax``
    call, by arithmetic on traced values or by a method of a traced array (inside or outside
    jit). A parameter is counted only when it is indexed with a non-string index and never
    used like a dict (``batch["x"]``, ``batch.items()``, ``"k" in batch``): dict pytrees are
    mutable Python dicts even under jit. Modules that use Pallas are skipped: there ``ref[...] = v`` writes to a mutable Ref.

    ## Why is this bad?
    JAX arrays are immutable: item assignment raises ``TypeError: JAX arrays are
    immutable``. The functional form ``x.at[i].set(v)`` returns a new array, and under
    jit XLA performs it in place when it can.

    ## Example
    ```python
    @jax.jit
    def reset_first(x):
        x[0] = 0.0
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def reset_first(x):
        x = x.at[0].set(0.0)
        return x
    ```

    ## Fix safety
    The fix (``x[i] = v`` -> ``x = x.at[i].set(v)``, ``x[i] += v`` -> ``x = x.at[i].add(v)``)
    is unsafe: it rebinds ``x`` to a new array, so other references to the old array
    (an alias, a caller's variable) no longer see the update that NumPy code expected.
    """

    code = "JS601"
    name = "inplace-array-update"
    message = "in-place assignment `{target}[...] = ...` on a JAX array (arrays are immutable); use `{target} = {target}.at[...].{method}(...)`"
    severity = "error"
    fix = "unsafe"
    nodes = (ast.Assign, ast.AugAssign)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                return
            target, method = node.targets[0], "set"
        else:
            target = node.target  # type: ignore[attr-defined]
            method = _AT_METHOD.get(type(node.op))  # type: ignore[attr-defined]
            if method is None:
                return
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return
        var = target.value.id
        f = ctx.frame
        if var not in f.arrays or ctx._local_frame(var) is not f:
            return
        if ctx.info.uses_pallas:
            return  # Pallas kernels write to Refs with `ref[...] = v`: indistinguishable without types
        if _str_index(target.slice):
            return  # `batch["image"] = ...`: a dict pytree, not an array
        if var in f.params and _dict_like(f.node, var):
            return  # a parameter used as a dict (`.items()`, `batch["x"]`, `"k" in batch`): a pytree
        index = ctx.segment(target.slice)
        value = ctx.segment(node.value)  # type: ignore[attr-defined]
        fix = None
        if index and value and "\n" not in index + value:
            repl = f"{var} = {var}.at[{index}].{method}({value})"
            fix = ctx.edit(self, node, repl, f"Replace with `{var} = {var}.at[...].{method}(...)`")
        ctx.report(self, node, fix=fix, target=var, method=method)


_DICT_METHODS = frozenset({"items", "keys", "values", "get", "update", "pop", "setdefault"})


def _str_index(index: ast.AST) -> bool:
    return isinstance(index, ast.Constant) and isinstance(index.value, str)


def _dict_like(fn: ast.AST | None, name: str) -> bool:
    """Does function ``fn`` use ``name`` as a dict: string subscripts, dict methods, ``in`` tests?"""
    if fn is None:
        return False
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name:
            if _str_index(n.slice):
                return True
        elif isinstance(n, ast.Attribute) and n.attr in _DICT_METHODS and isinstance(n.value, ast.Name) \
                and n.value.id == name:
            return True
        elif isinstance(n, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops) \
                and any(isinstance(c, ast.Name) and c.id == name for c in n.comparators):
            return True
    return False
