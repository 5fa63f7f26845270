"""JS608 traced-static-arg."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._static_args import filtered, message_via, static_arguments
from ._util import short


class TracedStaticArg(Rule):
    """A traced value passed, inside traced code, for a static argument of a jitted function.

    ## What it does
    Flags, in a traced function, a call of a jitted function (decorated, wrapped, or reached through a
    project wrapper that passes its parameter on to a static position: ``lint/wrappers.py``) that passes
    a traced value (a traced parameter, or a value computed from one) for a parameter named in
    ``static_argnums``/``static_argnames``. ``step(x, training)`` with ``step`` jitted and
    ``training`` not static in it, calling ``layer(x, training=training)`` whose ``training`` is static.

    ## Why is this bad?
    A jitted function called inside another trace still hashes its static arguments to find its
    cache entry, and tracers cannot be hashed: the call raises ``ValueError: Non-hashable static
    arguments are not supported`` (checked under real ``jax.jit``). Outside the outer trace the
    same call works, which hides it until the caller is jitted.

    ## Example
    ```python
    @partial(jax.jit, static_argnames="training")
    def layer(x, training): ...

    @jax.jit
    def step(x, training):
        return layer(x, training=training)
    ```

    ## Use instead
    ```python
    @partial(jax.jit, static_argnames="training")   # static all the way down
    def step(x, training):
        return layer(x, training=training)
    ```

    ## Fix safety
    No fix is offered: whether the value should be static in the caller, or traced in the callee
    (``lax.cond`` on it), is the program's choice.
    """

    code = "JS608"
    name = "traced-static-arg"
    message = ("traced value `{value}` passed for static argument `{param}` of `{function}`: a jit called while "
               "tracing still hashes its static arguments, and tracers cannot be hashed (ValueError 'Non-hashable "
               "static arguments'); make it static in this function too, or traced in `{function}`")
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        found = static_arguments(ctx, call)
        if found is None or filtered(ctx, call):
            return  # eqx.filter_jit: a tracer given for a parameter it keeps static by type is traced, not hashed
        function, passed = found
        for param, value in passed:
            if ctx.is_traced(value):
                details = dict(value=short(ctx, value), param=param, function=function)
                ctx.report(self, value, message_via(self, ctx, value, **details), subject=value, **details)
