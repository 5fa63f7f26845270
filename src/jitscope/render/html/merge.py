"""HTML layout for ``merge`` results: the divergence at the top, one timeline row per process, the
processes' compile sequences side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ..divergence_text import WHAT, agreement_line, compile_text, processes
from ._page import Section, esc, lesson, table
from .svg import timeline

if TYPE_CHECKING:
    from ...results.merge import MergeResult

MAX_ROWS = 200


def sections(result: MergeResult) -> list[Section]:
    ps = [r.process_index for r in result.processes]
    sequences = {i: result.sequence(i) for i in ps}
    body = f"<p>{len(ps)} process{'es' if len(ps) != 1 else ''} merged from <code>{esc(result.run_dir)}</code>.</p>"
    if result.divergences:
        for d in result.divergences:
            body += lesson(f"{d.kind.replace('_', ' ')} divergence at compile #{d.position + 1}: "
                           f"{processes(d.processes)} differ{'s' if len(d.processes) == 1 else ''} in "
                           f"{', '.join(d.differs) or 'order'}. {WHAT.get(d.kind, '').capitalize()}.",
                           "warn" if d.kind == "program" else "")
            body += table(["processes", "compiled there"],
                          [(", ".join(map(str, g.processes)), compile_text(g.event)) for g in d.groups])
    elif len(ps) > 1:
        body += lesson(f"No divergence: {agreement_line(sequences)}.", "ok")
    else:
        body += lesson(f"Only {processes(ps)}: nothing to compare (give the files of every process).")
    out = [Section("Divergence", body)]

    # One row per process on a shared clock: each process's watch start (started_at) when known.
    starts = [r.started_at for r in result.processes if r.started_at is not None]
    t0 = min(starts) if len(starts) == len(result.processes) and starts else None
    offset = {r.process_index: (r.started_at - t0 if t0 is not None and r.started_at is not None else 0.0)
              for r in result.processes}
    lane = {i: n for n, i in enumerate(ps)}
    bad = {(d.position, p) for d in result.divergences for p in d.processes}
    spans = []
    for i in ps:
        for pos, e in enumerate(sequences[i]):
            flag = " (diverges here)" if (pos, i) in bad else ""
            spans.append((lane[i], offset[i] + e.timestamp, e.total_seconds,
                          f"process {i} #{pos + 1}{flag}: {compile_text(e)}, {fmt_seconds(e.total_seconds)}"))
    total = max((offset[r.process_index] + (r.wall_seconds or 0.0) for r in result.processes), default=0.0)
    clock = "first process's watch start" if t0 is not None else "each process's own watch start"
    out.append(Section("Timeline", timeline([f"process {i}" for i in ps], spans, total=total,
                                            title=f"Each compile, one row per process (time from the {clock})")))

    rows = []
    longest = max((len(s) for s in sequences.values()), default=0)
    marks = {d.position: d.kind for d in result.divergences}
    for pos in range(min(longest, MAX_ROWS)):
        cells = [compile_text(sequences[i][pos]) if pos < len(sequences[i]) else "-" for i in ps]
        rows.append((f"{pos + 1}" + (f" ({marks[pos]} divergence)" if pos in marks else ""), *cells))
    more = f'<p class="muted">... and {longest - MAX_ROWS} more in the JSON.</p>' if longest > MAX_ROWS else ""
    out.append(Section("Compile sequences", table(["#", *(f"process {i}" for i in ps)], rows) + more))
    prow = [(r.process_index, r.pid or "-", r.compiles, fmt_seconds(r.compile_seconds), r.source)
            for r in result.processes]
    out.append(Section("Processes", table(["process", "pid", "compiles", "compile seconds", "file"], prow,
                                          numeric=(0, 2, 3))))
    if result.skipped:
        out.append(Section("Skipped files", table(["file and why"], [(s,) for s in result.skipped])))
    return out
