"""What the numeric-range rules (JS306, JS307) share: where a Python number meets a JAX array."""

from __future__ import annotations

import ast

from ...jaxmodel.dtypes import DtypeOf
from ...jaxmodel.values import DTYPE_PREDICATES, LIST_RETURNING
from ..context import Context

# jnp functions whose arguments are values (a Python number among them becomes an array), not shapes or axes
VALUE_FUNCS = frozenset({"asarray", "array", "minimum", "maximum", "clip", "where", "add", "subtract", "multiply",
                         "floor_divide", "mod", "remainder", "less", "less_equal", "greater", "greater_equal",
                         "equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "right_shift",
                         "left_shift", "true_divide", "divide"})
AT_METHODS = frozenset({"set", "add", "multiply", "min", "max"})
_X64 = ("jax_enable_x64", "enable_x64", "JAX_ENABLE_X64")


def is_jax_array(ctx: Context, node: ast.AST) -> bool:
    """Certainly a JAX array: a traced value, a jnp call's result, or a name of a stated strong dtype."""
    if ctx.is_traced(node):
        return True
    if isinstance(node, ast.Call):
        q = ctx.resolve(node.func) or ""
        return q.startswith("jax.numpy.") and q not in DTYPE_PREDICATES and q not in LIST_RETURNING
    d = DtypeOf(ctx.frame.node, ctx.resolve)(node) if isinstance(node, ast.Name) else None
    return d is not None and not d[1]


def x64_file(ctx: Context) -> bool:
    return ctx.memo(_mentions_x64)


def _mentions_x64(ctx: Context) -> bool:
    return any(k in ctx.text for k in _X64)
