"""CI budgets over a run's compiles: which breaches, in one line each."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import CompileEvent, Location
from .watch_summary import recompiles


def budget_violations(events: Sequence[CompileEvent], max_compiles: int | None,
                      fail_on_recompile: bool) -> list[str]:
    """One line per budget breach: too many compiles, or any recompile when that is forbidden."""
    out = []
    if max_compiles is not None and len(events) > max_compiles:
        out.append(f"{len(events)} compiles, budget is {max_compiles}")
    if fail_on_recompile:
        for e in recompiles(events):  # each has a reason
            out.append(f"recompile #{e.index} of {e.function}{_at(e.call_site)}: "
                       f"{e.reason.category}: {e.reason.detail}")  # type: ignore[union-attr]
    return out


def describe(event: CompileEvent) -> str:
    """One line for messages: function, reason and call site."""
    r = event.reason
    why = f"{r.category}: {r.detail}" if r else "unknown reason"
    return f"{event.function}{_at(event.call_site)} compiled ({why})"


def _at(loc: Location | None) -> str:
    return f" at {loc.file}:{loc.line}" if loc else ""
