"""``LintResult``: what ``jitscope lint`` found, in which files, and what it fixed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..model import Environment, Finding
from ._base import Result


@dataclass
class LintResult(Result):
    """Findings of one lint run plus the counts needed to render and gate on them.

    ``findings`` are sorted by file, line and column. A finding's ``details["source"]``
    holds its first source line, so a saved result renders snippets without the files.
    ``fixable`` / ``unsafe_fixable`` count remaining findings whose fix is safe / unsafe;
    ``fixes_applied`` counts edits written (``--fix``) or shown (``--diff``).
    """

    kind = "lint"
    findings: list[Finding] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    files_checked: int = 0
    lines_checked: int = 0
    fixes_applied: int = 0
    files_fixed: list[str] = field(default_factory=list)
    fixable: int = 0
    unsafe_fixable: int = 0
    diff: str = ""
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    config: str | None = None
    jobs: int = 1
    duration_s: float = 0.0
    env: Environment = field(default_factory=Environment)
    interrupted: bool = False  # Ctrl-C stopped the run; the files linted before it are kept
    evidence: str | None = None  # the trace evidence read (`--evidence`, or the default location), if any

    def counts_by_code(self) -> dict[str, int]:
        """Number of findings per rule code, most frequent first."""
        return dict(Counter(f.code for f in self.findings).most_common())

    @property
    def exit_code(self) -> int:
        """The CLI's exit status with the default ``--exit-on warning``: 1 if any finding is a warning or
        an error, else 0 (``info`` findings are reported but do not fail the run)."""
        return self.exit_status("warning")

    def failing(self, exit_on: str = "warning") -> list[Finding]:
        """Findings at severity ``exit_on`` (``error``, ``warning`` or ``info``) or above."""
        if exit_on not in SEVERITY_RANK:
            raise ValueError(f"exit_on must be one of {', '.join(SEVERITY_RANK)} (got {exit_on!r})")
        floor = SEVERITY_RANK[exit_on]
        return [f for f in self.findings if SEVERITY_RANK.get(f.severity, 1) >= floor]

    def exit_status(self, exit_on: str = "warning") -> int:
        """1 if a finding is at severity ``exit_on`` or above, else 0 (``jitscope lint --exit-on``)."""
        return 1 if self.failing(exit_on) else 0


SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}
