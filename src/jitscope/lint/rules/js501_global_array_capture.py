"""JS501 global-array-capture."""

from __future__ import annotations

import ast

from .. import arraysize
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
    constant costs the graph no more than a Python float. Nor are arrays whose source says they
    hold less than 1 MiB (shapes and contents from literals or module-level constants,
    ``jnp.zeros((N, 64), dtype=jnp.int8)``, a mask written out as a list, ``jnp.array(TABLE)`` of
    such a table; 4 bytes an element unless ``dtype`` says otherwise): measured under real jit,
    baking in a table below 1 MiB costs no compile time within noise, so lookup tables and masks
    are cheaper baked in than passed (pgx's move tables). An array whose size the source does not
    show is reported at ``info``, saying the condition; a known one of 1 MiB or more is a warning.

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
    message = ("module-level array `{var}` (line {line}, {size}) is baked into the compiled graph as a constant; "
               "pass '{var}' as an argument")
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
        if not once_per_function(ctx, self.code, name.id):
            return
        n = ctx.info.array_sizes.get(name.id)
        if n is None:  # its size is not known from the source: the cost is a guess, said as one
            ctx.report(self, name, f"module-level array `{name.id}` (line {line}) is baked into the compiled graph "
                       f"as a constant; its size is not known from the source: if it is {_MIB} MiB or more, pass "
                       f"'{name.id}' as an argument (a small table costs nothing baked in)", severity="info",
                       var=name.id, line=line)
            return
        nbytes = n * ctx.info.array_itemsizes.get(name.id, arraysize.DEFAULT_ITEMSIZE)
        ctx.report(self, name, var=name.id, line=line, size=_size(nbytes), bytes=nbytes)


_MIB = arraysize.SMALL_BYTES >> 20


def _size(nbytes: int) -> str:
    return f"{nbytes / (1 << 20):.1f} MiB" if nbytes >= 1 << 20 else f"{nbytes / 1024:.0f} KiB"


