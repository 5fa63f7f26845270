"""JS001 syntax-error."""

from __future__ import annotations

from ..rule import Rule


class SyntaxErrorRule(Rule):
    """The file does not parse as Python.

    ## What it does
    Reports a file that Python's own parser rejects (the E999 of other linters). The file
    gets exactly this one finding; every other file is still linted. A file valid for a newer
    Python than the one linting it (PEP 695 `type` aliases and type parameters, PEP 758
    `except A, B:`, PEP 750 t-strings on the failing line, or an f-string in a project whose
    `requires-python` is 3.12 or later: PEP 701) is one `info` instead: not linted, not broken.
    In a project that declares no Python an f-string failure (the parser's f-string messages, or a
    string cut short on a line holding an f-string) is possible 3.12+ code: `info`, `likely`.
    Any other syntax error stays an error whatever the project targets.

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
