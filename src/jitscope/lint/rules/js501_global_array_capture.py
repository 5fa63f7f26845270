"""JS501 global-array-capture."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ..scope import ModuleInfo
from ._util import once_per_function


class GlobalArrayCapture(Rule):
    """A module-level array read inside a traced function.

    ## What it does
    Flags reads, inside a traced function, of module-level names bound to arrays
    (``W = jnp.zeros(...)``, ``table = np.arange(...)``, ``key = jax.random.normal(...)``).
    0-d arrays (``ZERO = jnp.array(0)``, ``jnp.zeros(())``) are not flagged: a scalar
    constant costs the graph no more than a Python float. Nor are arrays whose literal shape
    or contents say they have fewer than 100,000 elements (``jnp.zeros((7, 64, 64))``, a mask
    written out as a list, ``jnp.array(TABLE)`` of such a table): lookup tables and masks are
    cheaper baked in than passed (pgx's move tables). Arrays of unknown size are flagged.

    ## Why is this bad?
    jit does not see globals as inputs: their value at trace time is baked into the
    compiled graph as a constant. Large constants bloat the executable and slow
    compilation, and if the global is rebound later the compiled function keeps using the
    old array until something forces a retrace.

    ## Example
    ```python
    W = jnp.ones((1024, 1024))

    @jax.jit
    def layer(x):
        return x @ W
    ```

    ## Use instead
    ```python
    @jax.jit
    def layer(x, W):
        return x @ W
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS501"
    name = "global-array-capture"
    message = "module-level array `{var}` (line {line}) is baked into the compiled graph as a constant; pass '{var}' as an argument"
    severity = "warning"
    requires = "staged"
    nodes = (ast.Name,)

    def names(self, info: ModuleInfo) -> frozenset[str]:
        return frozenset(info.module_arrays)

    def check(self, node: ast.AST, ctx: Context) -> None:
        name: ast.Name = node  # type: ignore[assignment]
        line = ctx.info.module_arrays.get(name.id)
        if line is None or not isinstance(name.ctx, ast.Load) or not ctx.is_module_global(name.id):
            return
        if once_per_function(ctx, self.code, name.id):
            ctx.report(self, name, var=name.id, line=line)


