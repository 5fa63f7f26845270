"""JS611 donation-by-keyword-ignored (``lint/donation.py`` models donation)."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from .js610_donated_buffer_reused import _donations, _fn


class DonationByKeywordIgnored(Rule):
    """An argument at a position ``pmap``'s ``donate_argnums`` donates, passed by keyword: it is not donated.

    ## What it does
    Flags a call of a ``jax.pmap(..., donate_argnums=...)`` function (bound to a name or ``self`` attribute of the
    module) that passes a donated position's argument by keyword, or passes fewer positional arguments than the
    donated positions need while passing keywords.

    ## Why is this bad?
    ``jax.pmap`` donates positional arguments only: an argument passed by keyword is not donated, silently, so the
    memory the donation was meant to save is spent (the old and the new state live at once). ``jax.jit`` maps
    keywords onto its ``donate_argnums`` through the function's signature and is not flagged
    (tests/test_lint_donation.py checks both under real JAX).

    ## Example
    ```python
    p_step = jax.pmap(partial(train_step, model=model), donate_argnums=(0, 1))
    state, metrics = p_step(state=state, batch=batch)   # nothing donated
    ```

    ## Use instead
    ```python
    state, metrics = p_step(state, batch)
    ```

    ## Fix safety
    No fix is offered: the function may take these parameters by keyword only.
    """

    code = "JS611"
    name = "donation-by-keyword-ignored"
    message = "`{arg}` is passed by keyword to `{function}`, whose pmap donates positional arguments only"
    severity = "warning"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        for f in _donations(ctx).get(node, ()):
            if f.kind != "keyword":
                continue
            fn = _fn(f.call, ctx)
            msg = (f"`{f.arg}=` is passed by keyword to `{fn}`, built by `{f.handle.wrapper}` with "
                   f"`{f.handle.option_name}={ctx.segment(f.handle.option)}` (line {f.handle.option.lineno}): pmap donates positional "
                   "arguments only, so nothing passed by keyword is donated and the memory donation was to save is "
                   "spent; pass the donated arguments positionally")
            ctx.report(self, f.node, msg, arg=f.arg, function=fn)
