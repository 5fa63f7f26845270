"""JS201 builtin-reduction."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import is_builtin, short

_REDUCTIONS = ("sum", "max", "min", "any", "all")


class BuiltinReduction(Rule):
    """Builtin ``sum``/``max``/``min``/``any``/``all`` over a traced array.

    ## What it does
    Flags the Python builtins ``sum``, ``max``, ``min``, ``any`` and ``all`` called with a
    single traced array (or a generator over one) inside a traced function.

    ## Why is this bad?
    The builtins iterate over the array in Python. Under jit every element becomes its own
    slice, reshape and add in the graph: builtin ``sum`` over N elements emits O(N)
    operations and compile time grows with N, against one ``reduce_sum`` for
    ``jnp.sum`` (``jitscope scale`` measures the growth on your code). ``max``/``min``/``any``/``all``
    also compare elements in Python, which needs concrete bools and fails under jit.

    ## Example
    ```python
    @jax.jit
    def total(x):
        return sum(x)
    ```

    ## Use instead
    ```python
    @jax.jit
    def total(x):
        return jnp.sum(x, axis=0)
    ```

    ## Fix safety
    The fix (``sum(x)`` -> ``jnp.sum(x, axis=0)``, likewise ``max``/``min``/``any``/``all``;
    offered when ``jax.numpy`` is imported at module level under a name not shadowed at
    the call) is unsafe. ``jnp.sum`` is not a drop-in for builtin ``sum``: on int8/uint8 and
    bool arrays it promotes to a wider (strong) int32 where ``sum`` keeps the dtype (and
    wraps around) or gives a weakly typed int; on an empty array ``sum`` returns the scalar
    ``0`` where ``jnp.sum`` returns zeros of the row shape; and a parameter that is really a
    list of arrays sums element-wise with ``sum`` but may fail with ``jnp.sum``. For
    ``max``/``min``/``any``/``all`` the original raises under jit, so the fix changes
    behaviour (for the better). Review each change; apply with ``--fix --unsafe-fixes``.
    """

    code = "JS201"
    name = "builtin-reduction"
    message = "builtin `{fn}` over traced array `{expr}` unrolls one op per element; use jnp.{fn}"
    severity = "warning"
    fix = "unsafe"
    requires = "staged"
    nodes = (ast.Call,)
    calls = _REDUCTIONS

    def check(self, node: ast.AST, ctx: Context) -> None:
        fn = is_builtin(ctx, node.func, _REDUCTIONS)  # type: ignore[attr-defined]
        if fn is None or len(node.args) != 1 or node.keywords:  # type: ignore[attr-defined]
            return
        arg = node.args[0]  # type: ignore[attr-defined]
        if isinstance(arg, ast.GeneratorExp):
            traced = any(ctx.is_traced(g.iter) for g in arg.generators)
            can_fix = False
        else:
            traced = ctx.is_traced(arg) and not isinstance(arg, (ast.List, ast.Tuple))
            can_fix = True
        if not traced:
            return
        if not can_fix:
            # `jnp.sum(v * v for v in x)` raises: a generator is not an array. Say what to write instead,
            # and that `x` may be a list of arrays (then the builtin is right).
            it = short(ctx, arg.generators[0].iter)  # type: ignore[attr-defined]
            ctx.report(self, node, f"builtin `{fn}` over a generator on traced `{it}` unrolls one op per element; "
                       f"write the body as one array expression over `{it}` and reduce it with jnp.{fn} "
                       "(jnp functions do not take generators)", fn=fn, expr=short(ctx, arg))
            return
        fix = None
        jnp = ctx.jnp_alias()
        if jnp:
            repl = f"{jnp}.{fn}({ctx.segment(arg)}, axis=0)"
            fix = ctx.edit(self, node, repl, f"Replace with `{jnp}.{fn}(..., axis=0)`")
        ctx.report(self, node, fix=fix, fn=fn, expr=short(ctx, arg))
