"""JS004 internal-error."""

from __future__ import annotations

from ..rule import Rule


class InternalError(Rule):
    """A rule of jitscope failed on this file: the file was linted without it.

    ## What it does
    Reports, at info level, that one of jitscope's own rules raised an exception while checking
    the file (a bug in jitscope, never in the code linted): the rule's name, the line it was
    checking and the exception. The other rules' findings in the file, and every other file, are
    kept; the failing rule is not run on the rest of this file.

    ## Why is this bad?
    It is not a pitfall of the code; it says that the failing rule's findings in this file may
    be missing. Please report it with the line shown.

    ## Example
    ```python
    # any file a rule fails on
    ```

    ## Use instead
    ```python
    # nothing to change in the code; report the message
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS004"
    name = "internal-error"
    message = "internal error: {detail}"
    severity = "info"
