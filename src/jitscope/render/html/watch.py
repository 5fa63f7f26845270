"""HTML layout for ``watch`` results: where compile time went, on a timeline, and what to fix."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..._format import fmt_seconds, shown_program
from ..text import cache_write_line, internal_routines_text, stall_lines, warmup_line
from . import watch_findings
from ._page import Raw, Section, details, esc, lesson, pre, table
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
            f"recompiles. JAX's own eager-op compiles: {result.internal_compiles} ({fmt_seconds(result.internal_seconds)})"
            f"{internal_routines_text(result)}.")
    body = lesson(head, "warn" if rec else "ok")
    if result.warmup is not None:  # watch --warmup: the check of a warm-up script
        w = result.warmup
        body += lesson(warmup_line(w) + ".", "warn" if w.missed or w.exit_code not in (None, 0) else "ok")
        if w.missed_functions:
            body += table(["missed by the warm-up (function, definition, compiles)"], [(m,) for m in w.missed_functions])
    if result.exit_code not in (None, 0):
        body += lesson(f"The program exited with status {result.exit_code}; everything up to then is here.", "warn")
    if result.crash is not None:
        fix = f" Fix: {result.crash.fix.title}. {result.crash.fix.description}" if result.crash.fix else ""
        body += lesson(f"Why it failed: {result.crash.message}.{fix}", "warn")
        if result.crash.fix is not None and result.crash.fix.replacement:
            body += pre(result.crash.fix.replacement)
    for v in result.violations:
        body += lesson(f"Budget: {v}", "warn")
    out = [Section(f"Watch: {shown_program(result.program) or 'Python block'}", body)]
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
        out.append(Section("Recompiles", _recompiles(rec)))
    if result.fixes:
        frows = [(i, fx.title, fmt_seconds(fx.saving_seconds), fx.saving_compiles or 0, _where(fx.location),
                  Raw(esc(fx.description) + (pre(fx.replacement) if fx.replacement else "")))
                 for i, fx in enumerate(result.fixes, 1)]
        total = result.fixes_total
        after = ""
        if total is not None and len(result.fixes) > 1:  # as the console says it
            overlap = (f"; the fixes overlap (their savings add up to {total.sum_of_fixes}), each compile "
                       "counted once" if total.sum_of_fixes > total.compiles else "")
            after = lesson(f"All {len(result.fixes)} fixes applied: {total.compiles} compile"
                           f"{'s' if total.compiles != 1 else ''} fewer, {fmt_seconds(total.seconds)} "
                           f"({total.remaining_compiles} left){overlap}.")
        out.append(Section("Fixes, largest saving first", table(
            ["", "fix", "saves", "compiles avoided", "at", "how"], frows, numeric=(0, 2, 3)) + after))
    if result.expected_recompiles:
        out.append(Section("Expected recompiles", "".join(
            lesson(f"Not a fix: {x.function} recompiles {x.compiles}× for static `{x.argument}`, which {x.why} "
                   f"(at {_where(x.location)}); each value is its own program.")
            for x in result.expected_recompiles)))
    if result.inspect_command is not None:
        from ..text import inspect_command_title

        cmd = result.inspect_command
        out.append(Section(inspect_command_title(cmd), "<p>Run this to see the jaxpr, graph bloat, fusions and "
                           "cost of that compile:</p>" + pre(cmd.shell())))
    if result.dump is not None:
        out.append(_dump_section(result))
    out += watch_findings.sections(result)  # runtime findings (JWxxx): a summary, then a section per code
    if result.stalls:
        out.append(Section("Stalls (compile phases past --stall-after)",
                           "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in stall_lines(result.stalls)) + "</ul>"))
    c = result.persistent_cache
    cache = (f"on ({esc(c.directory)}): {c.hits} hits saved {fmt_seconds(c.seconds_saved)}, {c.misses} misses"
             if c.enabled else "off")
    writes = cache_write_line(result.events, c.written, c.not_written)
    out.append(Section("Persistent compilation cache", f"<p>Cache {cache}. A rerun with a warm cache would load "
                       f"{c.rerun_cacheable_compiles} compiles, saving about {fmt_seconds(c.rerun_saving_seconds)}."
                       + (f" {esc(writes)}" if writes else "") + "</p>"))
    return out


def _cut(text: str, limit: int = 300) -> str:
    """A long detail (every leaf of a model that changed shape) cut short; the folded table has it whole."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _recompiles(rec: list) -> str:  # type: ignore[type-arg]
    """One row per (function, definition, cause): how many, the seconds, where called, the first one's
    detail; every recompile in order folded under the table."""
    groups: dict[tuple, list] = {}  # type: ignore[type-arg]
    for e in rec:
        groups.setdefault((e.function, _where(e.definition), e.reason.category if e.reason else "?"), []).append(e)
    rows = []
    for (function, _defined, cause), events in groups.items():
        sites = list(dict.fromkeys(_where(e.call_site) for e in events))
        first = events[0]
        rows.append((function, cause.replace("_", " "), len(events), fmt_seconds(sum(e.total_seconds for e in events)),
                     ", ".join(sites[:3]) + (f" and {len(sites) - 3} more" if len(sites) > 3 else ""),
                     f"#{first.index}: {_cut(first.reason.detail)}" if first.reason and first.reason.detail
                     else f"#{first.index}"))
    html = table(["function", "cause", "recompiles", "seconds", "called at", "first of them"], rows, numeric=(2, 3))
    each = [(e.index, e.function, _where(e.call_site), e.reason.category.replace("_", " ") if e.reason else "?",
             e.reason.detail if e.reason else "", fmt_seconds(e.total_seconds)) for e in rec[:MAX_ROWS]]
    more = f"<p class=\"muted\">... and {len(rec) - MAX_ROWS} more in the JSON.</p>" if len(rec) > MAX_ROWS else ""
    return html + details(f"each of the {len(rec)} recompiles, in order", table(
        ["#", "function", "called at", "reason", "detail", "seconds"], each, numeric=(0, 5)) + more)


def _dump_section(result: WatchResult) -> Section:
    """Links to ``--dump`` files, as tlparse links each compile's artifacts."""
    from pathlib import Path
    from urllib.parse import quote

    d = result.dump
    assert d is not None

    def link(name: str | None, text: str) -> str:
        if not name:
            return "-"
        path = Path(d.directory, name)
        try:
            href = path.as_uri()
        except ValueError:  # a relative directory (a hand-edited or moved result): a relative link
            href = quote(path.as_posix())
        return f'<a href="{esc(href)}">{esc(text)}</a>'

    rows = [(c.index, c.function, _where(c.call_site), c.reason.replace("_", " "),
             Raw(" · ".join(link(c.files.get(stage), stage) for stage in ("jaxpr", "stablehlo", "hlo", "passes")
                            if stage != "passes" or c.files.get(stage))))
            for c in d.compiles[:MAX_ROWS]]
    more = f"<p class=\"muted\">... and {len(d.compiles) - MAX_ROWS} more in index.json.</p>" \
        if len(d.compiles) > MAX_ROWS else ""
    head = (f"<p>Each compile's jaxpr, StableHLO and optimised HLO (and its time by XLA pass, "
            f"<code>passes</code>), written to {esc(d.directory)} "
            f"({link('index.json', 'index.json')}).</p>")
    return Section("Per-compile artifacts", head + table(["#", "function", "called at", "reason", "files"], rows,
                                                          numeric=(0,)) + more)
