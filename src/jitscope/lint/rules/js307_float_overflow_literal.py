"""JS307 float-overflow-literal."""

from __future__ import annotations

import ast

from ...jaxmodel.dtypes import FLOAT_MAX, beyond_float, dtype_name, python_float
from ..context import Context
from ..rule import Rule
from ._numeric import AT_METHODS, VALUE_FUNCS, is_jax_array, x64_file


class FloatOverflowLiteral(Rule):
    """A float literal too large for the float type it is stored in: it becomes ``inf``.

    ## What it does
    Flags a finite float the source spells out (``1e100``, ``-1e40``) beyond the largest value of the float
    type it reaches: given to ``jnp.float32``/``float16``/``bfloat16``, to ``jnp.asarray``/``array``/``full``
    with such a dtype (x64 on or off), or, in a file that does not mention ``jax_enable_x64``, without a
    dtype to ``jnp.asarray``/``full``/``where``/``minimum``/... , to ``x.at[i].set(...)``, or as an operand
    of arithmetic with a JAX array (float32 without x64).

    ## Why is this bad?
    ``jnp.float32(1e100)`` is ``inf``, with no error (float32's largest value is about ``3.4e38``): checked
    under real JAX, eagerly and under jit. A large finite number is written where a finite stand-in was
    meant (a mask fill before a softmax, an initial minimum, a penalty); as ``inf`` it turns into ``nan``
    at the first ``inf - inf`` or ``0 * inf`` (a fully masked softmax row is ``nan``). Without a dtype the
    value is float64 with x64 on, so those lines are warnings about the default configuration.

    ## Example
    ```python
    logits = jnp.where(mask, logits, -1e100)
    ```

    ## Use instead
    ```python
    logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)   # or -jnp.inf, if infinity is meant
    ```

    ## Fix safety
    No fix is offered: whether infinity or the largest finite value is meant is the program's choice.
    """

    code = "JS307"
    name = "float-overflow-literal"
    message = ("`{value}` is beyond {dtype}'s largest value ({limit:.4g}) and becomes inf in {where}; if a finite "
               "stand-in is meant use `jnp.finfo(dtype).max` (or `.min`), if infinity is meant write `jnp.inf`")
    severity = "warning"
    nodes = (ast.BinOp, ast.Call)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.BinOp):
            if x64_file(ctx):
                return
            for lit, other in ((node.right, node.left), (node.left, node.right)):
                if beyond_float(python_float(lit), "float32") and is_jax_array(ctx, other):
                    self._report(ctx, lit, "float32", f"arithmetic with `{ctx.segment(other)[:40]}`")
                    return
            return
        call: ast.Call = node  # type: ignore[assignment]
        if not call.args:
            return
        q = ctx.resolve(call.func) or ""
        name = q[len("jax.numpy."):] if q.startswith("jax.numpy.") else ""
        kw = {k.arg: k.value for k in call.keywords}
        if name in FLOAT_MAX and len(call.args) == 1:
            self._check(ctx, call.args[0], name, f"`jnp.{name}`")
        elif name in ("asarray", "array", "full", "full_like"):
            at = 1 if name.startswith("full") else 0
            value = kw.get("fill_value") if at and len(call.args) < 2 else call.args[at] if len(call.args) > at else None
            given = kw.get("dtype", call.args[at + 1] if len(call.args) > at + 1 else None)
            dtype = dtype_name(given, ctx.resolve)
            if given is None and name != "full_like" and not x64_file(ctx):
                dtype = "float32"
            if value is not None and dtype in FLOAT_MAX:
                self._check(ctx, value, dtype, f"`jnp.{name}`")
        elif name in VALUE_FUNCS and not x64_file(ctx):
            for a in call.args:
                if self._check(ctx, a, "float32", f"`jnp.{name}`"):
                    return
        elif (isinstance(call.func, ast.Attribute) and call.func.attr in AT_METHODS
              and isinstance(call.func.value, ast.Subscript) and isinstance(call.func.value.value, ast.Attribute)
              and call.func.value.value.attr == "at" and not x64_file(ctx)):
            self._check(ctx, call.args[0], "float32", f"`.at[...].{call.func.attr}`")

    def _check(self, ctx: Context, value: ast.expr, dtype: str, where: str) -> bool:
        if not beyond_float(python_float(value), dtype):
            return False
        self._report(ctx, value, dtype, where)
        return True

    def _report(self, ctx: Context, node: ast.AST, dtype: str, where: str) -> None:
        ctx.report(self, node, value=ctx.segment(node), dtype=dtype, limit=FLOAT_MAX[dtype], where=where)
