"""JS610 donated-buffer-reused (``lint/donation.py`` models donation)."""

from __future__ import annotations

import ast

from ..context import Context
from ..donation import findings
from ..rule import Rule


def _donations(ctx: Context) -> dict:
    """The file's donation findings, computed once per file (JS610 and JS611 ask at every call node)."""
    return ctx.memo(_compute_donations)


def _compute_donations(ctx: Context) -> dict:
    if "donate_arg" not in ctx.text:  # donate_argnums / donate_argnames: no option, no donation
        return {}
    return findings(ctx.tree, ctx.info.resolve)


def _fn(call: ast.Call, ctx: Context) -> str:
    return ctx.segment(call.func)


class DonatedBufferReused(Rule):
    """An array donated to a jitted call (``donate_argnums``/``donate_argnames``) used again after the call.

    ## What it does
    Follows each argument a call donates (a local name, passed at a position or name the jit's ``donate_argnums``/
    ``donate_argnames`` or pmap's ``donate_argnums`` give as literals) through the rest of the function in execution
    order. Flags a read of the name before it is bound again (``y = step(x)`` then ``x.sum()``), a call in a loop that
    donates a name the loop never binds again (the next iteration passes the deleted array), and a function that
    donates its own parameter and gives nothing of the call's result back (the caller's array is deleted, and the
    caller has no replacement). Reading only ``x.shape``/``x.dtype``, ``x is None`` or ``isinstance(x, ...)`` does not
    touch the buffer and is not flagged; ``x = step(x)`` is the intended use. A donated name passed twice to the
    same call (``step(x, x)``) is flagged too: the executable refuses one JAX array given for two arguments at every
    call, whatever the output shapes (a NumPy array or a Python number is copied per argument and runs: a name
    bound in its function only to a number literal or a ``np.*`` call is not flagged).

    ## Why is this bad?
    Donation hands the argument's buffer to an output of the same shape and dtype: JAX deletes the array after the
    call (on CPU too), and any later use raises ``RuntimeError: Array has been deleted`` (``ValueError: ... Buffer
    has been deleted or donated`` when a jitted call is handed it). A donated buffer that no
    output can reuse is not deleted (JAX warns "Some donated buffers were not usable"), which is why this is a
    warning: the model does not know the output shapes.

    ## Example
    ```python
    step = jax.jit(update, donate_argnums=0)
    new_params = step(params, grads)
    print(jnp.linalg.norm(params))   # RuntimeError: Array has been deleted
    ```

    ## Use instead
    ```python
    step = jax.jit(update, donate_argnums=0)
    params = step(params, grads)     # rebind the donated name to the result
    ```

    ## Fix safety
    No fix is offered: keeping the old array needs a copy or dropping the donation, a memory trade-off.
    """

    code = "JS610"
    name = "donated-buffer-reused"
    message = "`{arg}` is donated to `{function}` and used again afterwards"
    severity = "warning"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        for f in _donations(ctx).get(node, ()):
            if f.kind == "keyword":
                continue
            fn = _fn(f.call, ctx)
            how = (f"`{f.handle.option_name}={ctx.segment(f.handle.option)}` of `{f.handle.wrapper}` "
                   f"(line {f.handle.option.lineno})")
            raises = ("raises `Array has been deleted` (`Buffer has been deleted or donated` when a jitted call is "
                      "handed it) when an output has its shape and dtype (JAX then reuses the buffer, on CPU too)")
            related = [{"file": ctx.filename, "line": f.call.lineno, "message": f"the call that donates `{f.arg}`"},
                       {"file": ctx.filename, "line": f.handle.option.lineno, "message": "the donation"}]
            if f.kind == "twice":
                msg = (f"`{f.arg}` is passed to `{fn}` twice and donated by {how}: when it is a JAX array the "
                       "compiled call gets one buffer for two arguments and raises at every call (INVALID_ARGUMENT: "
                       "'Attempt to use a buffer that was previously donated in the same call' / 'Attempt to donate "
                       f"the same buffer twice'), on CPU too; pass a copy (`jnp.copy({f.arg})`) for one of them, or "
                       "do not donate it")
            elif f.kind == "read":
                msg = (f"`{f.arg}` was donated to `{fn}` at line {f.call.lineno} by {how} and is read here before it "
                       f"is bound again: this {raises}; rebind it to the result (`{f.arg} = {fn}(...)`), or do not "
                       "donate it")
            elif f.kind == "loop":
                msg = (f"`{f.arg}` is donated to `{fn}` by {how} on every iteration of this loop, which never binds "
                       f"it again: the next iteration passes the deleted array and {raises}; rebind `{f.arg}` to the "
                       "result in the loop, or do not donate it")
            else:
                names = ", ".join(f"`{n}`" for n in f.extra["names"])
                one = len(f.extra["names"]) == 1
                msg = (f"`{fn}` (line {f.call.lineno}) donates {names}, {'a parameter' if one else 'parameters'} of "
                       f"`{f.extra['function']}`, which gives nothing of the call's result back: the caller's "
                       f"{'array is' if one else 'arrays are'} deleted when an output reuses {'its' if one else 'their'} "
                       "buffer, and the caller's next use raises `Array has been deleted`; when no "
                       "output has the same shape and dtype, donating saves nothing. Do not donate "
                       f"{'it' if one else 'them'} here")
            ctx.report(self, f.node, msg, arg=f.arg, function=fn, related=related)
