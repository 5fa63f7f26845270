"""JS303 traced-shape-argument."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import hint_static, short

# function -> (positions, keywords) of its shape-like arguments
_SHAPE_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "jax.numpy.zeros": ((0,), ("shape",)), "jax.numpy.ones": ((0,), ("shape",)),
    "jax.numpy.empty": ((0,), ("shape",)), "jax.numpy.full": ((0,), ("shape",)),
    "jax.numpy.arange": ((0, 1, 2), ("start", "stop", "step")), "jax.numpy.linspace": ((2,), ("num",)),
    "jax.numpy.eye": ((0, 1), ("N", "M")), "jax.numpy.identity": ((0,), ("n",)),
    "jax.numpy.tri": ((0, 1), ("N", "M")), "jax.numpy.broadcast_to": ((1,), ("shape",)),
    "jax.numpy.reshape": ((1,), ("shape", "newshape")), "jax.numpy.tile": ((1,), ("reps",)),
    "jax.random.normal": ((1,), ("shape",)), "jax.random.uniform": ((1,), ("shape",)),
    "jax.random.bernoulli": ((2,), ("shape",)), "jax.random.randint": ((1,), ("shape",)),
    "jax.lax.iota": ((1,), ("size",)), "jax.lax.full": ((0,), ("shape",)),
    # where to split is a static shape too (flax's LSTM cell shipped `jnp.split(y, jnp.cumsum(...))`)
    "jax.numpy.split": ((1,), ("indices_or_sections",)), "jax.numpy.array_split": ((1,), ("indices_or_sections",)),
}


class TracedShapeArgument(Rule):
    """A traced value used as a shape, length or size (``jnp.ones(n)`` with traced ``n``).

    ## What it does
    Flags array constructors and reshapes inside a traced function whose shape argument
    (``jnp.zeros/ones/empty/full`` shape, ``jnp.arange`` bounds, ``jnp.linspace`` num,
    ``jnp.eye`` N, ``reshape`` sizes, ``jax.random.*`` shape) is computed from a traced
    value rather than from ``x.shape`` or a static argument.

    ## Why is this bad?
    Shapes must be known at trace time. A traced ``n`` has no value yet, so jit raises
    ``ConcretizationTypeError`` ("Shapes must be 1D sequences of concrete values").

    ## Example
    ```python
    @jax.jit
    def make(n):
        return jnp.ones(n)
    ```

    ## Use instead
    ```python
    @partial(jax.jit, static_argnums=0)
    def make(n):
        return jnp.ones(n)
    ```
    or derive the size from an input's static shape: ``jnp.ones(x.shape[0])``.

    ## Fix safety
    No fix is offered.
    """

    code = "JS303"
    name = "traced-shape-argument"
    message = "`{fn}` with traced size `{expr}`: shapes must be static under jit"
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Call,)
    calls = (*_SHAPE_ARGS, ".reshape")

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        q = ctx.resolve(call.func) or ""
        spec = _SHAPE_ARGS.get(q)
        if spec is None:
            if isinstance(call.func, ast.Attribute) and call.func.attr == "reshape" and ctx.is_traced(call.func.value):
                args, fn = list(call.args), f"{short(ctx, call.func.value, 20)}.reshape"
            else:
                return
        else:
            positions, keywords = spec
            args = [call.args[i] for i in positions if i < len(call.args)]
            args += [k.value for k in call.keywords if k.arg in keywords]
            fn = "jnp." + q.rpartition(".")[2] if q.startswith("jax.numpy.") else q
        for a in args:
            parts = a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a]
            hit = next((p for p in parts if ctx.is_traced(p)), None)
            if hit is not None:
                expr = short(ctx, hit)
                ctx.report(self, call, f"{self.message.format(fn=fn, expr=expr)}; {hint_static(ctx, hit, 'derive it from an input shape (x.shape[0])', always=True)}",
                           subject=hit, fn=fn, expr=expr)
                return
