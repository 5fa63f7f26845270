"""JS306 int-overflow-literal."""

from __future__ import annotations

import ast

from ...jaxmodel.dtypes import beyond_int32, dtype_name, int_range, python_int, wrapped
from ..context import Context
from ..rule import Rule
from ._numeric import AT_METHODS, VALUE_FUNCS, is_jax_array, x64_file


class IntOverflowLiteral(Rule):
    """A Python int literal outside int32's range meeting a JAX array, with 64-bit types off.

    ## What it does
    Flags an integer the source spells out (``10**10``, ``1 << 40``, ``int(1e10)``, ``0xFFFFFFFF``) beyond
    ``[-2**31, 2**31 - 1]`` used as an operand of arithmetic or a comparison with a JAX array (a traced
    value, or one whose dtype the source states), as a value argument of a ``jnp`` function
    (``jnp.asarray``, ``jnp.minimum``, ``jnp.where``, ...) or of ``x.at[i].set(...)``. Files that mention
    ``jax_enable_x64`` are not checked, nor modules of a package whose ``__init__.py`` (or an enclosing
    package's) turns x64 on at import (``jax.config.update("jax_enable_x64", True)``): Python runs it first.
    ``sys.maxsize`` and ``np.iinfo(np.int64).max`` count as spelled out.

    Where the source also names the dtype the int goes to, the claim holds with x64 on or off:
    ``jnp.int32(sys.maxsize)`` and ``jnp.asarray(2**40, jnp.int32)`` (any narrow integer type) raise
    ``OverflowError`` every time they run (an ``error``), and ``jnp.full(shape, 2**40, jnp.int32)`` stores
    the value wrapped without any error (every element ``0``; ``jnp.full(shape, sys.maxsize)`` without x64
    fills int32 with ``-1``), a warning.

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
            if not x64_file(ctx) and is_jax_array(ctx, other):
                ctx.report(self, lit, value=ctx.segment(lit), where=f"{where} with `{ctx.segment(other)[:40]}`")
                return

    def _call(self, call: ast.Call, ctx: Context) -> None:
        func = call.func
        if not call.args:
            return
        q = ctx.resolve(func) or ""
        if q.startswith("jax.numpy.") and self._typed(call, q[len("jax.numpy."):], ctx):
            return
        args = list(call.args)
        if q.startswith("jax.numpy.") and q.rsplit(".", 1)[1] in VALUE_FUNCS:
            where = f"an argument of `{q.replace('jax.numpy.', 'jnp.')}`"
            if q.endswith(("array", "asarray")):
                if any(k.arg == "dtype" for k in call.keywords) or len(args) > 1:
                    return  # a dtype given: jnp.asarray(2**40, jnp.float32) is fine
        elif (isinstance(func, ast.Attribute) and func.attr in AT_METHODS and isinstance(func.value, ast.Subscript)
              and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at"):
            where = f"`.at[...].{func.attr}`"
        else:
            return
        for a in args:
            if beyond_int32(python_int(a, ctx.resolve)) and not x64_file(ctx):
                ctx.report(self, a, value=ctx.segment(a), where=where)
                return


    def _typed(self, call: ast.Call, name: str, ctx: Context) -> bool:
        """An int the source spells out given to a narrow integer dtype the source names: ``jnp.int32(v)`` and
        ``jnp.asarray(v, jnp.int32)`` raise OverflowError with x64 on or off; ``jnp.full(shape, v, jnp.int32)``
        (and ``jnp.full(shape, v)`` without x64: int32) stores ``v`` wrapped, without an error."""
        kw = {k.arg: k.value for k in call.keywords}
        args = call.args
        if int_range(name) and len(args) == 1 and not kw:
            value, dtype, fill = args[0], name, False
        elif name in ("asarray", "array"):
            value, dtype, fill = args[0], dtype_name(kw.get("dtype", args[1] if len(args) > 1 else None),
                                                     ctx.resolve), False
        elif name in ("full", "full_like") and (len(args) > 1 or "fill_value" in kw):
            given = kw.get("dtype", args[2] if len(args) > 2 else None)
            dtype = dtype_name(given, ctx.resolve)
            if given is None and name == "full" and not x64_file(ctx):
                dtype = "int32"  # a Python int fills int32 arrays without x64
            value, fill = kw.get("fill_value", args[1] if len(args) > 1 else None), True
        else:
            return False
        bounds, v = int_range(dtype), python_int(value, ctx.resolve) if value is not None else None
        if bounds is None or v is None or bounds[0] <= v <= bounds[1]:
            return False
        call_text = f"jnp.{name}"
        if fill:
            msg = (f"`{ctx.segment(value)}` is outside {dtype}'s range {list(bounds)}: `{call_text}` stores it "
                   f"without a check, and every element becomes {wrapped(v, dtype)}; use a value that fits, or a "
                   "wider or float dtype")
            ctx.report(self, value, msg, value=ctx.segment(value), where=f"the fill value of `{call_text}`")
        else:
            msg = (f"`{ctx.segment(value)}` is outside {dtype}'s range {list(bounds)}: `{call_text}` raises "
                   "OverflowError, with jax_enable_x64 on or off; use a value that fits, or a wider or float dtype")
            ctx.report(self, value, msg, severity="error", confidence="certain", value=ctx.segment(value),
                       where=f"an argument of `{call_text}` with dtype {dtype}")
        return True
