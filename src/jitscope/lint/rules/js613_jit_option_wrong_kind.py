"""JS613 jit-option-wrong-kind."""

from __future__ import annotations

import ast

from ...jaxmodel import known
from ..context import Context
from ..rule import Rule
from ._static_args import values_of


def _elements(value: ast.expr) -> list[ast.expr] | None:
    if isinstance(value, ast.Constant):
        return [value]
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return list(value.elts)
    return None


def _wrong(option: str, elts: list[ast.expr]) -> ast.Constant | None:
    """The first element of the wrong kind: an int for a ``*argnames`` option, a str for a ``*argnums`` one."""
    want_names = option.endswith("argnames")
    for e in elts:
        if not isinstance(e, ast.Constant) or isinstance(e.value, bool):
            continue
        if (want_names and type(e.value) is int) or (not want_names and isinstance(e.value, str)):
            return e
    return None


class JitOptionWrongKind(Rule):
    """A jit option that takes parameter names given positions, or one that takes positions given names.

    ## What it does
    Flags ``static_argnames``/``donate_argnames`` holding an int, and ``static_argnums``/``donate_argnums``/
    ``static_broadcasted_argnums`` holding a string, in a call of ``jax.jit``, ``jax.pmap``, ``nnx.jit`` or another
    wrapper of jaxmodel's families (also as ``partial(jax.jit, ...)``), written at the call or bound to a name the
    call passes (``static_argnames = (2, 3)`` then ``jax.jit(step, static_argnames=static_argnames)``); the finding is
    at the option in the call, where the fix goes.

    ## Why is this bad?
    JAX 0.10 raises ``TypeError: argument is not a string: 2`` (or ``'str' object cannot be interpreted as an
    integer``) when the jit is built, checked in tests/test_lint_jit_options.py; older releases matched no parameter
    and left every one of them traced, so a Python flag or a config object meant to be static failed or
    recompiled inside the function.

    ## Example
    ```python
    static_argnames = (2, 3)
    step = jax.jit(train_step, static_argnames=static_argnames)
    ```

    ## Use instead
    ```python
    step = jax.jit(train_step, static_argnums=(2, 3))
    ```

    ## Fix safety
    No fix is offered: the intended option (positions or the names at them) is the program's choice.
    """

    code = "JS613"
    name = "jit-option-wrong-kind"
    message = "`{option}` holds {got}: jit raises TypeError when it is built"
    severity = "error"
    confidence = "certain"
    nodes = (ast.Call,)
    traced_only = False
    calls = known.names(lambda t: bool(t.static_options or t.donate_options)) | {"functools.partial"}

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        if not call.keywords:
            return
        q = ctx.resolve(call.func)
        if q == "functools.partial" and call.args:
            q = ctx.resolve(call.args[0])
        t = known.lookup(q)
        if t is None or not (t.static_options or t.donate_options):
            return
        seen = ctx.table(JitOptionWrongKind)
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in (*t.static_options, *t.donate_options):
                continue
            if not (kw.arg.endswith("argnames") or kw.arg.endswith("argnums")):
                continue
            for value in values_of(ctx, kw.value):
                elts = _elements(value) if value is not None else None
                bad = _wrong(kw.arg, elts) if elts is not None else None
                if bad is None or kw.value in seen:
                    continue
                seen[kw.value] = True
                got = f"the position {bad.value}" if type(bad.value) is int else f"the name {bad.value!r}"
                names_option = kw.arg.endswith("argnames")
                other = kw.arg.replace("argnames", "argnums") if names_option else kw.arg.replace("argnums", "argnames")
                use = (f"use `{other}` for {'positions' if names_option else 'names'}"
                       if other in (*t.static_options, *t.donate_options)
                       else f"`{q}` takes positions only: give the parameter's position")
                older = " (older releases matched no parameter and traced every one)" if names_option else ""
                where = "" if value is kw.value else f" (`{ctx.segment(kw.value)}`, bound at line {value.lineno})"
                msg = (f"`{kw.arg}` of `{q}` holds {got}{where}: `{kw.arg}` takes parameter "
                       f"{'names' if names_option else 'positions'}, so JAX raises TypeError when the jit is "
                       f"built{older}; {use}")
                ctx.report(self, kw.value, msg, option=kw.arg, got=got, wrapper=q)
