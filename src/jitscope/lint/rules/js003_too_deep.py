"""JS003 too-deep-to-analyse."""

from __future__ import annotations

from ..rule import Rule


class TooDeepToAnalyse(Rule):
    """The file is valid Python, but an expression in it is nested too deeply to analyse.

    ## What it does
    Reports, at info level, a file holding an expression nested deeper than the linter can
    walk (or than Python's own parser can build a syntax tree for), such as the thousand-term
    chains that code generators like sympy's ``lambdify`` write. The file is not a syntax
    error: it is simply not checked (or only partly checked) by the other rules.

    ## Why is this bad?
    It is not a pitfall in itself; the finding says that jit pitfalls in this file may go
    unreported, so a clean run does not vouch for it.

    ## Example
    ```python
    def f(x):
        return x + x + x + x  # ... thousands of terms, one nested BinOp each
    ```

    ## Use instead
    ```python
    def f(x):
        return jnp.sum(jnp.stack([x, x, x, x]), axis=0)
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS003"
    name = "too-deep-to-analyse"
    message = "too deep to analyse: {detail}"
    severity = "info"
