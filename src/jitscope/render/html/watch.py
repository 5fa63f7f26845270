"""HTML layout for ``watch`` results: where compile time went, on a timeline, and what to fix."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from . import watch_findings
from ._page import Section, esc, lesson, table
from .svg import bar_chart, timeline

if TYPE_CHECKING:
    from ...model import Location
    from ...results.watch import WatchResult

MAX_ROWS = 200


def _where(loc: Location | None) -> str:
    return f"{os.path.basename(loc.file)}:{loc.line}" if loc else "-"


def sections(result: WatchResult) -> list[Section]:
    n, secs = len(result.events), result.compile_seconds
    share = f" ({secs / result.wall_seconds:.0%} of {fmt_seconds(result.wall_seconds)} wall time)" \
        if result.wall_seconds > 0 else ""
    rec = result.recompiles
    head = (f"{n} compiles of your jitted functions took {fmt_seconds(secs)}{share}; {len(rec)} of them were "
            f"recompiles. JAX's own eager-op compiles: {result.internal_compiles} ({fmt_seconds(result.internal_seconds)}).")
    body = lesson(head, "warn" if rec else "ok")
    if result.exit_code not in (None, 0):
        body += lesson(f"The program exited with status {result.exit_code}; everything up to then is here.", "warn")
    if result.crash is not None:
        fix = f" Fix: {result.crash.fix.title}. {result.crash.fix.description}" if result.crash.fix else ""
        body += lesson(f"Why it failed: {result.crash.message}.{fix}", "warn")
    for v in result.violations:
        body += lesson(f"Budget: {v}", "warn")
    out = [Section(f"Watch: {result.program or 'Python block'}", body)]
    if not n:
        return out + watch_findings.sections(result)

    fns = result.functions
    chart = bar_chart([f.function for f in fns], [f.seconds for f in fns], title="Compile seconds per function")
    rows = [(f.function, _where(f.definition), f.compiles, fmt_seconds(f.seconds),
             f"{f.share_of_wall:.1%}" if f.share_of_wall is not None else "-",
             ", ".join(f"{k.replace('_', ' ')} ×{v}" for k, v in f.reasons.items() if k != "first_compile") or "-")
            for f in fns]
    out.append(Section("Compiles per function", chart + table(
        ["function", "defined at", "compiles", "seconds", "% wall", "why"], rows, numeric=(2, 3, 4))))

    lanes = [f.function for f in fns]
    lane_of = {(f.function, _where(f.definition)): i for i, f in enumerate(fns)}
    spans = []
    for e in result.events:
        lane = lane_of.get((e.function, _where(e.definition)))
        if lane is not None:
            why = e.reason.category.replace("_", " ") if e.reason else ""
            spans.append((lane, e.timestamp, e.total_seconds, f"#{e.index} {e.function}: {why}, "
                          f"{fmt_seconds(e.total_seconds)} at {_where(e.call_site)}"))
    out.append(Section("Timeline", timeline(lanes, spans, total=result.wall_seconds,
                                            title="Each compile (trace + lower + compile) during the run")))

    if rec:
        rrows = [(e.index, e.function, _where(e.call_site), e.reason.category.replace("_", " ") if e.reason else "?",
                  e.reason.detail if e.reason else "", fmt_seconds(e.total_seconds)) for e in rec[:MAX_ROWS]]
        more = f"<p class=\"muted\">... and {len(rec) - MAX_ROWS} more in the JSON.</p>" if len(rec) > MAX_ROWS else ""
        out.append(Section("Recompiles", table(["#", "function", "called at", "reason", "detail", "seconds"],
                                               rrows, numeric=(0, 5)) + more))
    if result.fixes:
        frows = [(i, fx.title, fmt_seconds(fx.saving_seconds), fx.saving_compiles or 0, _where(fx.location),
                  fx.description) for i, fx in enumerate(result.fixes, 1)]
        out.append(Section("Fixes, largest saving first", table(
            ["", "fix", "saves", "compiles avoided", "at", "how"], frows, numeric=(0, 2, 3))))
    out += watch_findings.sections(result)  # runtime findings (JWxxx): a summary, then a section per code
    c = result.persistent_cache
    cache = (f"on ({esc(c.directory)}): {c.hits} hits saved {fmt_seconds(c.seconds_saved)}, {c.misses} misses"
             if c.enabled else "off")
    out.append(Section("Persistent compilation cache", f"<p>Cache {cache}. A rerun with a warm cache would load "
                       f"{c.rerun_cacheable_compiles} compiles, saving about {fmt_seconds(c.rerun_saving_seconds)}.</p>"))
    return out
