"""JS101 traced-control-flow."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import from_traced_name, handles_concretization, hint_static, short


class TracedControlFlow(Rule):
    """Python ``if``, ``while``, ternary or ``assert`` on a traced value.

    ## What it does
    Flags a Python branch or loop condition, a conditional expression (``a if c else b``)
    or an ``assert`` whose condition is computed from a traced value inside a function that
    JAX traces (``jax.jit``, ``vmap``, ``grad``, a ``lax.scan`` body, ...).

    ## Why is this bad?
    While tracing, a value is an abstract tracer with a shape and dtype but no contents.
    Python needs a concrete ``True``/``False`` to pick a branch, so tracing fails with
    ``TracerBoolConversionError`` (a ``ConcretizationTypeError``). The code works without
    jit and breaks the moment it is jitted.

    ## Example
    ```python
    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    ## Use instead
    Select with ``jnp.where`` (both sides are computed), branch with ``lax.cond``, or
    make the value static when it is a configuration, not data:
    ```python
    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)

    @partial(jax.jit, static_argnames="training")
    def apply(x, training):
        if training:
            ...
    ```

    ## Fix safety
    No fix is offered: the right replacement depends on whether both branches may run.
    """

    code = "JS101"
    name = "traced-control-flow"
    message = "Python `{kind}` on traced value `{expr}`: jit needs a concrete bool here"
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.If, ast.While, ast.IfExp, ast.Assert)

    def check(self, node: ast.AST, ctx: Context) -> None:
        test = node.test  # type: ignore[attr-defined]
        if isinstance(test, ast.BoolOp) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return  # JS102 reports the operator
        if not ctx.is_traced(test) or handles_concretization(ctx, node) or _container_param(ctx, test):
            return
        # jnp applied to Python values only: a tracer under jit, but likely a function's eager path.
        weak = {} if from_traced_name(ctx, test) else {"severity": "warning"}
        kind = {ast.If: "if", ast.While: "while", ast.IfExp: "... if ... else", ast.Assert: "assert"}[type(node)]
        ctx.report(self, test, f"{self.message.format(kind=kind, expr=short(ctx, test))}; {hint_static(ctx, test)}",
                   kind=kind, expr=short(ctx, test), **weak)  # type: ignore[arg-type]


_CONTAINERS = frozenset({"tuple", "Tuple", "list", "List", "dict", "Dict", "Sequence", "Mapping", "MutableMapping",
                         "MutableSequence", "OrderedDict", "NamedTuple"})


def _type_aliases(ctx: Context) -> dict[str, str]:
    """Module-level ``Alias = Container[...]`` names -> their text."""
    return {st.targets[0].id: ast.unparse(st.value) for st in ctx.tree.body
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
            and isinstance(st.value, ast.Subscript)}


def _container_param(ctx: Context, test: ast.AST) -> bool:
    """``if limit:`` on a parameter annotated as a tuple/list/dict (or ``X | None`` of one, through a
    module-level alias such as ``Cache = dict[str, Array]``): Python tests the container's length."""
    if type(test) is not ast.Name:
        return False
    f = ctx._local_frame(test.id)  # type: ignore[attr-defined]
    args = getattr(f.node, "args", None) if f is not None else None
    if args is None or test.id in f.bound:  # type: ignore[union-attr]
        return False
    ann = next((p.annotation for p in args.posonlyargs + args.args + args.kwonlyargs
                if p.arg == test.id), None)  # type: ignore[attr-defined]
    if ann is None:
        return False
    aliases = ctx.memo(_type_aliases)
    text = ast.unparse(ann).removeprefix("Optional[").removeprefix("typing.Optional[")
    parts = [t.strip().rstrip("]") if t.strip().startswith("None") else t.strip() for t in text.split("|")]
    kinds = []
    for part in parts:
        if part in ("None", "None]"):
            continue
        head = aliases.get(part, part).split("[", 1)[0].rpartition(".")[2]
        kinds.append(head in _CONTAINERS)
    return bool(kinds) and all(kinds)
