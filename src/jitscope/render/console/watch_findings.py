"""The runtime findings block of the watch summary: grouped by (function, code), worst first, each
with its fix (records: ``analyze/runtime_findings.py``; codes: ``jitscope rules --runtime``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._format import shown_where
from . import fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...model import Location
    from ...results.watch import WatchResult

# The block stays a screen long however many findings a run has; every one is in --json / --html.
MAX_GROUPS = 8
MAX_LINES = 2
_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def _where(loc: Location | None) -> str:
    if loc is None:
        return "-"
    return shown_where(loc.file, loc.line)


def render(result: WatchResult, console: Console) -> None:
    """Print the findings block (nothing when there are none)."""
    from rich.markup import escape

    from ...analyze.runtime_findings import group_findings

    findings = getattr(result, "findings", None) or []
    if not findings:
        return
    groups = group_findings(findings)
    console.print(f"[bold]Runtime findings, worst first[/bold] ({len(findings)} in {len(groups)} groups; "
                  "`jitscope rules CODE` explains each code)")
    for g in groups[:MAX_GROUPS]:
        times = f" x{g.count}" if g.count > 1 else ""
        what = "in host callbacks" if g.code == "JW506" else "in host-to-device copies" if g.code == "JW508" else \
            "lost off the fast path" if g.code.startswith("JW5") else "of trace+compile"
        secs = f", {fmt_seconds(g.seconds)} {what}" if g.seconds > 0 else ""
        style = _STYLE.get(g.severity, "")
        console.print(f"  [{style}]{g.code} {g.severity}[/{style}] [bold]{escape(g.function)}[/bold]{times}{secs}")
        shown: dict[tuple, object] = {}
        for f in g.findings:  # one line per distinct (line, what): a retrace repeats the same finding
            shown.setdefault((_where(f.location), f.fix.title if f.fix else "", f.details.get("kind")), f)
        titles: set[str] = set()
        for i, f in enumerate(list(shown.values())[:MAX_LINES]):
            console.print(f"     {_where(f.location)}: {f.message}", markup=False)  # type: ignore[attr-defined]
            if f.source:  # type: ignore[attr-defined]
                console.print(f"       > {f.source}", markup=False)  # type: ignore[attr-defined]
            if i == 0 and getattr(f, "evidence", ""):  # what was measured, once per group
                sure = f" ({f.confidence})" if getattr(f, "confidence", None) else ""
                console.print(f"       evidence{sure}: {f.evidence}", markup=False)
            fix = f.fix  # type: ignore[attr-defined]
            if fix is not None and fix.title not in titles:
                titles.add(fix.title)
                console.print(f"       fix: {fix.title}. {fix.description}", markup=False)
        if len(shown) > MAX_LINES:
            console.print(f"     ... and {len(shown) - MAX_LINES} more lines (all in --json)")
    if len(groups) > MAX_GROUPS:
        console.print(f"  ... and {len(groups) - MAX_GROUPS} more groups (all in --json / --html)")
