"""HTML layout for ``scale`` results: per-size table, log-log growth charts, fitted exponents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ..text import interval_text
from ._findings import findings_table
from ._page import Section, esc, lesson, table
from .svg import loglog_chart

if TYPE_CHECKING:
    from ...results.scale import ScaleResult


def sections(result: ScaleResult) -> list[Section]:
    phases = sorted({k for p in result.points for k in p.timings}, key=("trace", "lower", "compile", "run").index
                    if all(k in ("trace", "lower", "compile", "run") for p in result.points for k in p.timings)
                    else str)
    rows = []
    for p in result.points:
        rows.append([p.n, *(fmt_seconds(p.timings[k].median) if k in p.timings else "-" for k in phases),
                     "-" if p.equations is None else f"{p.equations:,}",
                     "-" if p.hlo_ops is None else f"{p.hlo_ops:,}", p.bloat_repeats or 0, p.error or ""])
    body = f"<p><code>{esc(result.target)}</code> over sizes {esc(', '.join(map(str, result.sizes)))}</p>"
    body += table(["n", *phases, "jaxpr equations", "HLO ops", "bloat repeats", "error"], rows,
                  numeric=range(len(phases) + 4))
    ok = [p for p in result.points if p.error is None]
    body += loglog_chart({k: [(p.n, p.timings[k].median) for p in ok if k in p.timings] for k in phases},
                         xlabel="n", ylabel="seconds", title="Time per stage over n (log-log)")
    body += loglog_chart({"jaxpr equations": [(p.n, p.equations) for p in ok if p.equations],
                          "HLO ops": [(p.n, p.hlo_ops) for p in ok if p.hlo_ops]},
                         xlabel="n", ylabel="count", title="Program size over n (log-log)")
    out = [Section("Scaling", body)]
    if result.fits:
        fits = table(["metric", "exponent", "95% interval", "r²", "growth"],
                     [(f.metric, "-" if f.exponent is None else f"{f.exponent:.2f}", interval_text(f),
                       "-" if f.r2 is None else f"{f.r2:.2f}", f.growth_range) for f in result.fits.values()],
                     numeric=(1, 3))
        sup = [f.metric for f in result.fits.values() if f.growth == "superlinear" and f.settled is not False]
        note = lesson(f"Superlinear growth: {', '.join(sup)}.", "warn") if sup else ""
        out.append(Section("Growth fits (value ≈ c · n^exponent)", fits + note))
    out.append(Section("Findings", findings_table(result.findings)))
    return out
