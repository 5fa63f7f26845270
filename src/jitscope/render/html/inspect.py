"""HTML layout for ``inspect`` results: stages, jaxpr anatomy, bloat, fusions, cost, findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._format import fmt_number, fmt_seconds
from ..arguments import arguments, folded_leaves_note, jaxpr_inputs, leaf_list
from ._findings import findings_table
from ._page import Section, details, esc, lesson, pre, table
from .svg import bar_chart

if TYPE_CHECKING:
    from ...results.inspect import InspectResult

STAGES = ("trace", "lower", "compile", "first_run", "steady_run", "eager_run")
SHOWN_ROWS = 8  # rows of a long listing shown open; the rest are folded under it


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:,.4g}"


def sections(result: InspectResult) -> list[Section]:
    out: list[Section] = []
    head = f"<p><code>{esc(result.target)}({esc(arguments(result.signature))})</code></p>"
    if folded_leaves_note(result.signature):
        leaves = leaf_list(result.signature)
        head += details(f"all {len(leaves)} leaves of the arguments", pre("\n".join(leaves)))
    if result.status != "ok":
        out.append(Section("Inspect", head + lesson("Tracing failed; the findings below explain where and how to "
                                                    "fix it.", "warn") + findings_table(result.findings)))
        if result.trace_output:
            out.append(Section("Printed while tracing", pre(result.trace_output)))
        return out
    stages = [s for s in STAGES if s in result.timings and result.timings[s].median is not None]
    body = head + table([s.replace("_", " ") for s in stages],
                        [[fmt_seconds(result.timings[s].median) for s in stages]], numeric=range(len(stages)))
    body += bar_chart([s.replace("_", " ") for s in stages], [result.timings[s].median for s in stages],
                      title="Where the time goes (median seconds)", log=True)
    for stage, err in result.stage_errors.items():
        body += lesson(f"{stage} failed: {err}", "warn")
    out.append(Section("Stages", body))

    j = result.jaxpr
    if j is not None:
        prims = sorted(j.by_primitive.items(), key=lambda kv: -kv[1])
        outputs = ", ".join(j.outputs[:SHOWN_ROWS]) + (f", +{len(j.outputs) - SHOWN_ROWS} more"
                                                       if len(j.outputs) > SHOWN_ROWS else "")
        body = (f"<p>{j.equations:,} equations ({j.top_level_equations:,} at top level); inputs "
                f"<code>{esc(jaxpr_inputs(j, result.signature))}</code>; outputs {esc(outputs)}; {j.constants} "
                f"constants ({j.constant_bytes:,} bytes).</p>")
        body += bar_chart([p for p, _ in prims[:12]], [float(c) for _, c in prims[:12]], unit="",
                          title="Equations by primitive")
        if j.nested:
            same: dict[tuple, int] = {}  # equal bodies (the 5 relu's of 5 layers) in one row, their uses added
            for n in j.nested:
                same[(n.primitive, n.path, n.equations)] = same.get((n.primitive, n.path, n.equations), 0) + n.uses
            body += _folded_table(f"Nested bodies ({len(j.nested)})", ["primitive", "path", "equations", "uses"],
                                  [(*k, uses) for k, uses in same.items()], numeric=(2, 3))
        if j.captured:
            body += "<h3>Captured values (frozen at trace time)</h3>" + table(
                ["name", "from", "type", "value", "bytes", "read at"],
                [(c.name, c.source, c.type, c.value, c.bytes, f"line {c.location.line}" if c.location else "-")
                 for c in j.captured], numeric=(4,))
        if j.weak_typed_inputs:
            body += f"<p>Weakly typed inputs: {esc(', '.join(j.weak_typed_inputs))}</p>"
        out.append(Section("jaxpr", body))

    if result.bloat:
        rows = [(b.construct or b.kind, f"line {b.location.line}" if b.location else "-", b.repeats, b.pattern_size,
                 b.equations, f"{b.share:.0%}", " ".join(b.pattern[:8]), b.fix.title if b.fix else "")
                for b in result.bloat]
        body = table(["construct", "where", "repeats", "eqns per repeat", "equations", "share", "pattern", "fix"],
                     rows, numeric=(2, 3, 4, 5))
        for b in result.bloat:
            if b.source:
                body += pre(b.source)
        out.append(Section("Graph bloat", body))

    from .line_cost import line_cost_section

    if (lines := line_cost_section(result)) is not None:
        out.append(lines)

    h = result.hlo
    if h is not None:
        body = bar_chart(["StableHLO", "HLO before optimisation", "HLO after (outside fusions)", "fused ops"],
                         [float(h.stablehlo_ops), float(h.hlo_before_ops), float(h.hlo_after_ops),
                          float(h.fused_ops)], unit="", title="Program size through the compiler", log=True)
        body += table(["flops", "bytes accessed", "transcendentals", "arithmetic intensity (flops/byte)"],
                      [(_num(h.flops), _num(h.bytes_accessed), _num(h.transcendentals),
                        _num(h.arithmetic_intensity))], numeric=(0, 1, 2, 3))
        if h.memory:
            from ..._format import fmt_bytes

            used = [(k.replace("_size", "").replace("_", " "), v) for k, v in h.memory.items() if v]
            body += (f"<p>Memory: {esc(', '.join(f'{k} {fmt_bytes(v)}' for k, v in used) or 'none reported')}.</p>"
                     + details("every size XLA reports (bytes)", table(
                         ["kind", "bytes"], [(k, f"{v:,}") for k, v in h.memory.items()], numeric=(1,))))
        if h.fusions:
            body += _folded_table(f"{h.fusion_count} fusions", ["fusion", "kind", "ops", "output", "holds"],
                                  [(f.name, f.kind, f.ops, f.output, ", ".join(
                                      f"{k} ×{v}" for k, v in sorted(f.by_op.items(), key=lambda kv: -kv[1])[:8]))
                                   for f in h.fusions[:100]], numeric=(2,))
        out.append(Section("Compiled program", body))

    if result.shard_layout is not None or result.collectives is not None:
        from .sharding import section as sharding_section

        out.append(sharding_section(result))
    if result.pessimisation is not None and result.pessimisation.fires:
        from .pessimisation import section as pessimisation_section

        out.append(pessimisation_section(result.pessimisation))
    if result.passes is not None:
        out.append(Section("Compile anatomy", _passes_body(result)))

    if result.numerics is not None:
        n = result.numerics
        tone = "ok" if n.ok else "warn"
        out.append(Section("jit vs eager", lesson(f"{n.status}: max abs error {fmt_number(n.max_abs_error)}, max rel error "
                                                  f"{fmt_number(n.max_rel_error)}. {n.detail}", tone)))
    out.append(Section("Findings", findings_table(result.findings)))
    if result.trace_output:
        out.append(Section("Printed while tracing", pre(result.trace_output)))
    return out


def _folded_table(title: str, headers: list[str], rows: list, numeric: tuple[int, ...] = ()) -> str:  # type: ignore[type-arg]
    """``<h3>title</h3>`` and a table of the first rows, the rest folded under it."""
    html = f"<h3>{esc(title)}</h3>" + table(headers, rows[:SHOWN_ROWS], numeric=numeric)
    if len(rows) > SHOWN_ROWS:
        html += details(f"{len(rows) - SHOWN_ROWS} more", table(headers, rows[SHOWN_ROWS:], numeric=numeric))
    return html


def _passes_body(result: InspectResult, top: int = 25) -> str:
    """The backend compile pass by pass: a sentence, a bar chart of the top passes, tables."""
    from ..text import parallel_summary, passes_summary

    p = result.passes
    assert p is not None
    if p.status != "ok":
        return lesson(passes_summary(p), "warn")
    body = lesson(passes_summary(p))
    shown = p.top(top)
    body += bar_chart([q.name for q in shown[:12]], [q.seconds for q in shown[:12]],
                      title="Top XLA passes (self seconds)")
    passes = table(["pass", "seconds", "share", "runs", "pipeline"],
                   [(q.name, fmt_seconds(q.seconds), f"{q.share:.1%}", q.count, q.pipeline) for q in shown],
                   numeric=(1, 2, 3))
    if len(p.passes) > top:
        rest = p.passes[top:]
        passes += f"<p>{len(rest)} more passes: {esc(fmt_seconds(sum(q.seconds for q in rest)))} together.</p>"
    body += details(f"the top {len(shown)} passes with their runs and pipelines", passes)
    body += details(f"{len(p.pipelines)} pipelines and steps", table(
        ["pipeline or step", "seconds", "share"], [(q.name, fmt_seconds(q.seconds), f"{q.share:.1%}")
                                                   for q in p.pipelines], numeric=(1, 2)))
    parallel = parallel_summary(p)
    if parallel:
        body += lesson(parallel) + details("passes on parallel compiler threads", table(
            ["pass", "CPU seconds", "runs"], [(q.name, fmt_seconds(q.seconds), q.count) for q in p.parallel_passes],
            numeric=(1, 2)))
    return body
