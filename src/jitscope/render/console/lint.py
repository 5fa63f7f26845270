"""Text rendering of a ``LintResult``: ruff-like ``path:line:col: CODE [severity, confidence] message``
with a snippet and caret.

``format_text`` is pure (result in, string out) and imports nothing heavy, so
``jitscope lint`` stays fast; ``render`` prints it on a rich Console for ``jitscope report``.
Snippets come from each finding's ``details["source"]``, so loaded results render too.
"""

from __future__ import annotations

from ..._format import shown_where

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from rich.console import Console

    from ...model import Finding
    from ...results.lint import LintResult


_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;36m"}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"


def format_finding(f: Finding, *, snippet: bool = True, color: bool = False) -> str:
    """One finding: the header line, then the source line with a caret under the flagged range."""
    loc = f.location
    where = f"{shown_where(loc.file, loc.line)}:{loc.column or 1}" if loc else "<unknown>"
    mark = " [*]" if f.fix is not None and f.fix.safety == "safe" and f.fix.replacement else ""
    how = f"[{f.severity}, {f.confidence}]" if f.confidence else f"[{f.severity}]"
    if color:
        head = f"{_BOLD}{where}{_RESET}: {_COLORS.get(f.severity, '')}{f.code}{_RESET}{mark} {how} {f.message}"
    else:
        head = f"{where}: {f.code}{mark} {how} {f.message}"
    src = f.details.get("source") if snippet else None
    if not isinstance(src, str) or loc is None:
        return head
    src = src.expandtabs(1).rstrip()
    col = min(max((loc.column or 1) - 1, 0), len(src))  # a column past the line (a stale or edited file)
    end = (loc.end_column or col + 2) - 1 if (loc.end_line or loc.line) == loc.line else len(src)
    width = max(1, min(end, len(src)) - col)
    gutter = " " * len(str(loc.line))
    caret = " " * col + "^" * width
    if color:
        caret = f"{_COLORS.get(f.severity, '')}{caret}{_RESET}"
    return f"{head}\n{gutter} |\n{loc.line} | {src}\n{gutter} | {caret}"


def format_text(result: LintResult, *, snippet: bool = True, color: bool = False) -> str:
    """The whole report: every finding, then a one-line summary (and fixable counts)."""
    parts = [format_finding(f, snippet=snippet, color=color) for f in result.findings]
    n = len(result.findings)
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
    lines = [("\n\n" if snippet else "\n").join(parts) + ("\n" if snippet else "")] if parts else []
    if result.fixes_applied:
        verb = "Would fix" if result.diff else "Fixed"
        lines.append(f"{verb} {result.fixes_applied} finding{'s' if result.fixes_applied != 1 else ''}.")
    if n:
        by_code = ", ".join(f"{code} x{count}" for code, count in result.counts_by_code().items())
        lines.append(f"Found {n} finding{'s' if n != 1 else ''} in {files} ({by_code}).")
        hints = []
        if result.fixable:
            hints.append(f"[*] {result.fixable} fixable with `--fix`")
        if result.unsafe_fixable and result.fixable:
            hints.append(f"{result.unsafe_fixable} more with `--fix --unsafe-fixes`")
        elif result.unsafe_fixable:
            n_unsafe = result.unsafe_fixable
            hints.append(f"No safe fixes; {n_unsafe} unsafe fix{'es' if n_unsafe != 1 else ''} available with "
                         "`--fix --unsafe-fixes` (review them: they may change behaviour)")
        if hints:
            lines.append("; ".join(hints) + ".")
    else:
        lines.append(f"All checks passed ({files}, {result.lines_checked} lines).")
    if result.evidence:
        observed = sum(1 for f in result.findings if f.details.get("observed"))
        lines.append(f"Trace evidence read from {result.evidence} ({observed} finding{'s' if observed != 1 else ''} "
                     "in code the run saw traced).")
    return "\n".join(lines) + "\n"


def render(result: LintResult, console: Console) -> None:
    """Print the text report on ``console`` (no rich markup is interpreted in source snippets)."""
    console.out(format_text(result, color=False), highlight=False, end="")
