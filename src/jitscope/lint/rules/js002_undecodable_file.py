"""JS002 undecodable-file."""

from __future__ import annotations

from ..rule import Rule


class UndecodableFile(Rule):
    """The file's bytes are not text in its declared encoding.

    ## What it does
    Reports a ``.py`` file whose bytes cannot be decoded (UTF-8 by default, or the
    encoding named by a PEP 263 ``# -*- coding: ... -*-`` cookie). The file gets this one
    finding and linting continues with the next file.

    ## Why is this bad?
    Python refuses to import such a file, so nothing in it runs, jitted or not.

    ## Example
    A file saved as Latin-1 containing ``é`` without a coding cookie.

    ## Use instead
    Save the file as UTF-8, or declare its encoding on the first or second line:
    ```python
    # -*- coding: latin-1 -*-
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS002"
    name = "undecodable-file"
    message = "file is not decodable Python source: {detail}"
    severity = "error"
    confidence = "certain"
