"""Lint findings as GitHub Actions workflow commands: one ``::error ...::message`` line per finding.

Printed in a workflow step, each line becomes a pull-request annotation on the file and line
(``jitscope lint --output-format github``). Severity maps to the command: ``error`` -> ``::error``,
``warning`` -> ``::warning``, ``info`` -> ``::notice``. Property values and the message are
escaped as the workflow-command syntax requires (``%``, CR, LF; ``:`` and ``,`` in properties).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..results.lint import LintResult

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult) -> str:
    """One workflow command per finding, in the result's order (nothing when there are none)."""
    lines = []
    for f in result.findings:
        props = []
        loc = f.location
        if loc is not None:
            props += [f"file={_prop(loc.file)}", f"line={loc.line}"]
            if loc.column is not None:
                props.append(f"col={loc.column}")
            if loc.end_line is not None:
                props.append(f"endLine={loc.end_line}")
            if loc.end_column is not None and loc.column is not None:
                props.append(f"endColumn={loc.end_column}")
        props.append(f"title={_prop(f.code)}")
        lines.append(f"::{_COMMAND.get(f.severity, 'warning')} {','.join(props)}::{_data(f.code + ' ' + f.message)}")
    return "".join(line + "\n" for line in lines)
