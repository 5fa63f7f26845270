"""JS104 numpy-on-traced."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import short

_STATIC_OK = frozenset({"shape", "ndim", "size", "dtype", "result_type", "issubdtype", "iinfo", "finfo", "isscalar",
                        "promote_types", "can_cast", "broadcast_shapes"})
# NumPy functions that call the argument's own method (np.sum(x) -> x.sum()) and so work on tracers
# (each run under jax.jit in tests/test_lint_narrow_types.py).
_DELEGATING = frozenset({"sum", "mean", "max", "min", "prod", "any", "all", "std", "var", "argmax", "argmin",
                         "cumsum", "cumprod", "transpose", "round", "around", "squeeze", "amax", "amin",
                         "searchsorted", "repeat", "reshape", "swapaxes"})


class NumpyOnTraced(Rule):
    """A NumPy function (``numpy``, not ``jax.numpy``) called on a traced value.

    ## What it does
    Flags ``np.f(x)`` where ``np`` is the real NumPy module and ``x`` is traced inside a
    traced function. Imports are resolved, so ``import jax.numpy as np`` is *not* flagged.

    ## Why is this bad?
    NumPy converts its input with ``__array__``, which a tracer refuses: jit raises
    ``TracerArrayConversionError``. Without jit it silently copies to the host and back.
    (Reductions that NumPy delegates to the argument's own method, such as ``np.sum``,
    ``np.mean``, ``np.max`` or ``np.transpose``, work on tracers and are not flagged.)

    ## Example
    ```python
    import numpy as np

    @jax.jit
    def f(x):
        return np.sin(x) + 1
    ```

    ## Use instead
    ```python
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        return jnp.sin(x) + 1
    ```

    ## Fix safety
    The fix (``np.f`` -> ``jnp.f``, offered when ``jax.numpy`` is imported at module level under a
    name not shadowed at the call) is unsafe: a
    few ``jax.numpy`` functions differ from NumPy in defaults (dtype promotion, 32-bit
    types, out-of-bounds indexing), so review each change.
    """

    code = "JS104"
    name = "numpy-on-traced"
    message = "NumPy `{fn}` on traced value `{expr}` (TracerArrayConversionError under jit); use jax.numpy"
    severity = "error"
    confidence = "certain"
    fix = "unsafe"
    requires = "abstract"
    nodes = (ast.Call,)
    calls = ("numpy.*",)

    def check(self, node: ast.AST, ctx: Context) -> None:
        q = ctx.resolve(node.func)  # type: ignore[attr-defined]
        if not q or not q.startswith("numpy.") or q.rpartition(".")[2] in _STATIC_OK:
            return
        if q.count(".") == 1 and q.rpartition(".")[2] in _DELEGATING:
            return  # np.sum(x) calls x.sum(): works under jit
        args = list(node.args) + [k.value for k in node.keywords]  # type: ignore[attr-defined]
        hit = next((a for a in args if ctx.is_traced(a)), None)
        if hit is None:
            return
        fn = "np." + q[len("numpy."):]
        fix = None
        jnp = ctx.jnp_alias()
        func = node.func  # type: ignore[attr-defined]
        if jnp and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and q.count(".") == 1:
            fix = ctx.edit(self, func, f"{jnp}.{func.attr}", f"Replace with `{jnp}.{func.attr}`")
        ctx.report(self, node, fix=fix, subject=hit, fn=fn, expr=short(ctx, hit))
