"""``jitscope lint --add-noqa``: suppress a lint result's findings with ``# noqa`` comments in the files."""

from __future__ import annotations

from dataclasses import dataclass, field

from .lint.noqa import add_noqa_to_file
from .results.lint import LintResult


@dataclass
class NoqaOutcome:
    """What ``add_noqa`` wrote: comments added, files changed, and files left alone with the reason."""

    added: int = 0
    files: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def add_noqa(result: LintResult) -> NoqaOutcome:
    """Add ``# noqa: CODES`` comments for every finding of ``result`` to its file (idempotent).

    Example:
        >>> import jitscope
        >>> from jitscope._lint_noqa import add_noqa
        >>> outcome = add_noqa(jitscope.lint(["src/"]))   # doctest: +SKIP
        >>> outcome.added, outcome.files                     # doctest: +SKIP
    """
    by_file: dict[str, list] = {}
    for f in result.findings:
        if f.location is not None:
            by_file.setdefault(f.location.file, []).append(f)
    out = NoqaOutcome()
    for path, findings in by_file.items():
        count, why = add_noqa_to_file(path, findings)
        if why is not None:
            out.refused.append((path, why))
        elif count:
            out.added += count
            out.files.append(path)
    return out
