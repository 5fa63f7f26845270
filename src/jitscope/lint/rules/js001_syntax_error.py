"""JS001 syntax-error."""

from __future__ import annotations

from ..rule import Rule


class SyntaxErrorRule(Rule):
    """The file does not parse as Python.

    ## What it does
    Reports a file that Python's own parser rejects (the E999 of other linters). The file
    gets exactly this one finding; every other file is still linted.

    ## Why is this bad?
    A file that does not parse cannot be imported, so no function in it can be traced at
    all, and none of the other rules can look at it.

    ## Example
    ```python
    @jax.jit
    def f(x)
        return x + 1
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(x):
        return x + 1
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS001"
    name = "syntax-error"
    message = "syntax error: {detail}"
    severity = "error"
    confidence = "certain"
