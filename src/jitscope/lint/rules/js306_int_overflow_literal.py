"""JS306 int-overflow-literal."""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache

from ...jaxmodel.dtypes import DtypeOf, beyond_int32, python_int
from ...jaxmodel.values import DTYPE_PREDICATES, LIST_RETURNING
from ..context import Context
from ..rule import Rule

# jnp functions whose arguments are values (a Python int among them becomes an array), not shapes or axes
_VALUE_FUNCS = frozenset({"asarray", "array", "minimum", "maximum", "clip", "where", "add", "subtract", "multiply",
                          "floor_divide", "mod", "remainder", "less", "less_equal", "greater", "greater_equal",
                          "equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "right_shift",
                          "left_shift", "true_divide", "divide"})
_AT_METHODS = frozenset({"set", "add", "multiply", "min", "max"})
_X64 = ("jax_enable_x64", "enable_x64", "JAX_ENABLE_X64")


class IntOverflowLiteral(Rule):
    """A Python int literal outside int32's range meeting a JAX array, with 64-bit types off.

    ## What it does
    Flags an integer the source spells out (``10**10``, ``1 << 40``, ``int(1e10)``, ``0xFFFFFFFF``) beyond
    ``[-2**31, 2**31 - 1]`` used as an operand of arithmetic or a comparison with a JAX array (a traced
    value, or one whose dtype the source states), as a value argument of a ``jnp`` function
    (``jnp.asarray``, ``jnp.minimum``, ``jnp.where``, ...) or of ``x.at[i].set(...)``. Files that mention
    ``jax_enable_x64`` are not checked, nor modules of a package whose ``__init__.py`` (or an enclosing
    package's) turns x64 on at import (``jax.config.update("jax_enable_x64", True)``): Python runs it first.

    ## Why is this bad?
    With ``jax_enable_x64`` off (JAX's default) a Python int that meets an array is first made a weakly
    typed int32, whatever the array's dtype: ``jnp.float32(1) * 2**31`` and ``x_uint32 & 0xFFFFFFFF`` raise
    ``OverflowError`` ("An overflow was encountered while parsing an argument to a jitted computation"), under
    jit and eagerly alike (checked under real JAX). With x64 on the same line works, which is why the rule
    is a warning.

    ## Example
    ```python
    count = jnp.minimum(count, 10**10)
    ```

    ## Use instead
    ```python
    count = jnp.minimum(count, 1e10)          # a float literal, or a typed array: jnp.uint32(0xFFFFFFFF)
    ```

    ## Fix safety
    No fix is offered: whether a float, a narrower constant or x64 is right is the program's choice.
    """

    code = "JS306"
    name = "int-overflow-literal"
    message = ("`{value}` is outside int32's range and meets a JAX array ({where}): without jax_enable_x64 JAX "
               "converts it to int32 first and raises OverflowError; use a float literal or a typed constant "
               "(`jnp.uint32(...)`), or enable x64")
    severity = "warning"
    nodes = (ast.BinOp, ast.Compare, ast.Call)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.BinOp):
            self._pairs(node, [(node.right, node.left), (node.left, node.right)], ctx, "an operand of arithmetic")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            self._pairs(node, [(a, b) for a in sides for b in sides if a is not b], ctx, "a comparison")
        else:
            self._call(node, ctx)  # type: ignore[arg-type]

    def _pairs(self, node: ast.AST, pairs: list[tuple[ast.AST, ast.AST]], ctx: Context, where: str) -> None:
        for lit, other in pairs:
            if not beyond_int32(python_int(lit, ctx.resolve)) or python_int(other, ctx.resolve) is not None:
                continue  # no big int, or Python arithmetic on constants (folded by Python)
            if not _x64_file(ctx) and _is_array(ctx, other):
                ctx.report(self, lit, value=ctx.segment(lit), where=f"{where} with `{ctx.segment(other)[:40]}`")
                return

    def _call(self, call: ast.Call, ctx: Context) -> None:
        func = call.func
        if not call.args:
            return
        q = ctx.resolve(func) or ""
        args = list(call.args)
        if q.startswith("jax.numpy.") and q.rsplit(".", 1)[1] in _VALUE_FUNCS:
            where = f"an argument of `{q.replace('jax.numpy.', 'jnp.')}`"
            if q.endswith(("array", "asarray")):
                if any(k.arg == "dtype" for k in call.keywords) or len(args) > 1:
                    return  # a dtype given: jnp.asarray(2**40, jnp.float32) is fine
        elif (isinstance(func, ast.Attribute) and func.attr in _AT_METHODS and isinstance(func.value, ast.Subscript)
              and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at"):
            where = f"`.at[...].{func.attr}`"
        else:
            return
        for a in args:
            if beyond_int32(python_int(a, ctx.resolve)) and not _x64_file(ctx):
                ctx.report(self, a, value=ctx.segment(a), where=where)
                return


def _is_array(ctx: Context, node: ast.AST) -> bool:
    """Certainly a JAX array: a traced value, a jnp call's result, or a name of a stated strong dtype."""
    if ctx.is_traced(node):
        return True
    if isinstance(node, ast.Call):
        q = ctx.resolve(node.func) or ""
        return q.startswith("jax.numpy.") and q not in DTYPE_PREDICATES and q not in LIST_RETURNING
    d = DtypeOf(ctx.frame.node, ctx.resolve)(node) if isinstance(node, ast.Name) else None
    return d is not None and not d[1]


def _x64_file(ctx: Context) -> bool:
    return ctx.memo(_mentions_x64)


def _mentions_x64(ctx: Context) -> bool:
    return any(k in ctx.text for k in _X64) or package_enables_x64(os.path.dirname(os.path.abspath(ctx.filename)))


# `jax.config.update("jax_enable_x64", True)`, `config.update('jax_enable_x64', 1)`,
# `os.environ["JAX_ENABLE_X64"] = "1"`: x64 turned on for the whole process
_ENABLES_X64 = re.compile(r"""update\(\s*["']jax_enable_x64["']\s*,\s*(True|1)\b|"""
                          r"""["']JAX_ENABLE_X64["']\s*\]\s*=\s*["'](1|true|True)["']""")


@lru_cache(maxsize=256)
def package_enables_x64(directory: str) -> bool:
    """Does an ``__init__.py`` of the package holding ``directory`` (its own or an enclosing package's) turn on
    ``jax_enable_x64`` at import? Python runs every enclosing package's ``__init__`` before a module of the
    package, so x64 is on whenever the module's code runs."""
    d = directory
    while os.path.isfile(init := os.path.join(d, "__init__.py")):
        try:
            with open(init, encoding="utf-8", errors="replace") as f:
                if _ENABLES_X64.search(f.read(200_000)):
                    return True
        except OSError:
            return False
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent
    return False
