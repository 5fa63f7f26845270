"""Console rendering of an ``InspectResult`` (works on a loaded result: plain data only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape as esc

from ..._format import fmt_count, fmt_number
from . import fmt_bytes, fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.inspect import InspectResult

_TIMING_ORDER = ("trace", "lower", "compile", "first_run", "steady_run", "eager_run")
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
MAX_FINDINGS = 10  # and bloat patterns: the summary stays short; every one is in --json


_num = fmt_count


def render(result: InspectResult, console: Console) -> None:
    """Print the sections of an inspect result: timings, jaxpr, bloat, HLO, cost, findings."""
    from rich.table import Table

    from ..arguments import arguments, folded_leaves_note

    console.print(f"[bold]jitscope inspect[/bold] {esc(result.target)}({esc(arguments(result.signature))})",
                  soft_wrap=True)
    if note := folded_leaves_note(result.signature):
        console.print(f"  [dim]({esc(note)})[/dim]")
    if result.status != "ok":
        _render_trace_error(result, console)
        return
    if result.timings:
        t = Table(title="stages", title_justify="left", show_edge=False)
        for name in _TIMING_ORDER:
            if name in result.timings:
                t.add_column(name.replace("_", " "), justify="right")
        t.add_row(*[fmt_seconds(result.timings[n].median) for n in _TIMING_ORDER if n in result.timings])
        console.print(t)
    if result.jaxpr:
        _render_jaxpr(result, console)
    if result.bloat:
        console.print("[bold]graph bloat[/bold] (repeated equation patterns):")
        for r in result.bloat[:MAX_FINDINGS]:
            where = f"{r.location.file.rsplit('/', 1)[-1]}:{r.location.line}" if r.location else "?"
            body = f" in {r.body} body" if r.body else ""
            console.print(esc(f"  {where}{body}: {r.construct} {r.repeats} x {r.pattern_size} equations = "
                              f"{r.equations} ({r.share:.0%} of the program); fix: {r.fix.title if r.fix else '-'}"),
                          soft_wrap=True)
            if r.source:
                console.print(f"      {esc(r.source)}", soft_wrap=True)
        if len(result.bloat) > MAX_FINDINGS:
            console.print(f"  ... and {len(result.bloat) - MAX_FINDINGS} more patterns (all in --json / --html)")
    if result.line_costs:
        from .line_cost import render_line_costs

        render_line_costs(result, console)
    if result.hlo:
        _render_hlo(result, console)
    if result.shard_layout is not None or result.collectives is not None:
        from .sharding import render as render_sharding

        render_sharding(result, console)
    if result.pessimisation is not None and result.pessimisation.fires:
        from .pessimisation import render as render_pessimisation

        render_pessimisation(result.pessimisation, console)
    if result.passes is not None:
        _render_passes(result, console)
    if result.numerics is not None:
        n = result.numerics
        state = "equal within tolerance" if n.ok else f"[yellow]{n.status}[/yellow]: {esc(n.detail)}"
        console.print(f"jit vs eager: {esc(state) if n.ok else state} (max abs error {fmt_number(n.max_abs_error)}, max rel error "
                      f"{fmt_number(n.max_rel_error)})")
    _render_findings(result, console)
    if result.trace_output.strip():
        lines = result.trace_output.strip().splitlines()
        more = f" (+{len(lines) - 3} more lines)" if len(lines) > 3 else ""
        console.print(esc(f"printed while tracing{more}: " + " | ".join(lines[:3])), soft_wrap=True)
    if result.dump_files:
        console.print(esc(f"dump: {len(result.dump_files)} files in {result.dump_files[0].rsplit('/', 1)[0]}"))


def _render_jaxpr(result: InspectResult, console: Console) -> None:
    j = result.jaxpr
    assert j is not None
    prims = ", ".join(f"{p} {n}" for p, n in list(j.by_primitive.items())[:8])
    more = f", +{len(j.by_primitive) - 8} more" if len(j.by_primitive) > 8 else ""
    console.print(f"[bold]jaxpr[/bold]: {j.equations} equations ({j.top_level_equations} top level): "
                  f"{esc(prims)}{more}")
    if j.nested:
        bodies = ", ".join(f"{b.path} ({b.equations} eqns{f' x{b.uses}' if b.uses > 1 else ''})" for b in j.nested[:6])
        console.print(f"  nested bodies: {esc(bodies)}")
    from ..arguments import jaxpr_inputs

    outputs = ", ".join(j.outputs[:8]) + (f", +{len(j.outputs) - 8} more" if len(j.outputs) > 8 else "")
    console.print(esc(f"  inputs: {jaxpr_inputs(j, result.signature) or '-'}; outputs: {outputs or '-'}"))
    console.print(f"  constants: {j.constants} ({fmt_bytes(j.constant_bytes)})")
    for c in j.captured:
        if c.in_jaxpr or c.kind == "scalar":
            line = f" line {c.location.line}" if c.location else ""
            console.print(f"    {c.source} [bold]{esc(c.name)}[/bold] = {esc(c.type)} {esc(c.value)}{line}")


def _render_hlo(result: InspectResult, console: Console) -> None:
    h = result.hlo
    assert h is not None
    console.print(f"[bold]HLO[/bold]: {h.stablehlo_ops} StableHLO ops -> {h.hlo_before_ops} HLO ops before "
                  f"optimisation -> {h.hlo_after_ops} after ({h.fusion_count} fusion{'s' if h.fusion_count != 1 else ''}"
                  f" holding {h.fused_ops} ops)")
    for f in h.fusions[:8]:
        ops = ", ".join(f"{op}{f' x{n}' if n > 1 else ''}" for op, n in list(f.by_op.items())[:6])
        console.print(esc(f"  {f.name} ({f.kind}, {f.ops} ops -> {f.output}): {ops}"))
    if len(h.fusions) > 8:
        console.print(f"  ... {len(h.fusions) - 8} more fusions")
    ai = f"{h.arithmetic_intensity:.3g} flops/byte" if h.arithmetic_intensity is not None else "-"
    console.print(f"  cost: {_num(h.flops)} flops, {fmt_bytes(h.bytes_accessed)} accessed, "
                  f"{_num(h.transcendentals)} transcendentals; arithmetic intensity {ai}")
    if h.memory:
        mem = ", ".join(f"{k.replace('_size', '')} {fmt_bytes(v)}" for k, v in h.memory.items()
                        if v and not k.startswith("host_"))
        console.print(esc(f"  memory: {mem or 'all zero'}"))


def _render_passes(result: InspectResult, console: Console, top: int = 8) -> None:
    from ..text import parallel_summary, passes_summary

    p = result.passes
    assert p is not None
    console.print(f"[bold]compile anatomy[/bold]: {esc(passes_summary(p))}", soft_wrap=True)
    if p.status != "ok":
        return
    width = max((len(q.name) for q in p.top(top)), default=0)
    for q in p.top(top):
        where = f"  in {q.pipeline}" if q.pipeline else ""
        runs = f" x{q.count}" if q.count > 1 else ""
        console.print(esc(f"  {q.name:<{width}} {fmt_seconds(q.seconds):>9} {q.share:>4.0%}{runs}{where}"),
                      soft_wrap=True)
    if len(p.passes) > top:
        rest = p.passes[top:]
        console.print(f"  ... {len(rest)} more passes, {fmt_seconds(sum(q.seconds for q in rest))}")
    pipes = ", ".join(f"{q.name} {fmt_seconds(q.seconds)}" for q in p.pipelines[:4])
    console.print(esc(f"  pipelines: {pipes}"), soft_wrap=True)
    parallel = parallel_summary(p)
    if parallel:
        console.print(esc(f"  {parallel}"), soft_wrap=True)


def _render_findings(result: InspectResult, console: Console) -> None:
    if not result.findings:
        console.print("findings: none")
        return
    console.print(f"[bold]findings[/bold] ({len(result.findings)}):")
    for f in result.findings[:MAX_FINDINGS]:
        style = _SEVERITY_STYLE.get(f.severity, "")
        console.print(f"  [{style}]{f.severity}[/{style}] {f.code}: {esc(f.message)}", soft_wrap=True)
        if f.fix:
            console.print(esc(f"      fix: {f.fix.title}" + (f" -> {f.fix.replacement}" if f.fix.replacement else "")),
                          soft_wrap=True)
    if len(result.findings) > MAX_FINDINGS:
        console.print(f"  ... and {len(result.findings) - MAX_FINDINGS} more findings (all in --json / --html)")


def _render_trace_error(result: InspectResult, console: Console) -> None:
    for f in result.findings:
        console.print(f"[bold red]{esc(str(f.details.get('error', f.code)))}[/bold red] while tracing", soft_wrap=True)
        lines = []
        if f.location:
            lines.append(f"  at {f.location}")
        if f.details.get("source"):
            lines.append(f"    {f.details['source']}")
        if f.details.get("what"):
            lines.append(f"  what happened: {f.details['what']}")
        if f.details.get("traced"):
            lines.append(f"  traced value: {f.details['traced']}")
        if f.details.get("argument"):
            lines.append(f"  depends on argument: {f.details['argument']}")
        if f.fix:
            lines += [f"  fix: {f.fix.title}", f"       {f.fix.description}"]
        lines.append(f"  JAX said: {f.details.get('jax_message', '') or f.message}")
        for line in lines:
            console.print(esc(line), soft_wrap=True)
