"""Sentences built from analyzers' verdicts, shared by the console and HTML renderers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._format import fmt_number, fmt_ratio, fmt_seconds
from ..analyze.compare import BreakEven, Recommendation
from ..analyze.compile_passes import CompilePasses
from ..analyze.inspect_command import InspectCommand
from ..analyze.scaling import GrowthFit

if TYPE_CHECKING:
    from ..results.compare import CompareResult


def recommendation_text(rec: Recommendation) -> str:
    """One sentence built from a Recommendation's numbers."""
    if rec.runner_up is None:
        return f"only {rec.best} was measured successfully"
    intervals = [i for i in (rec.best_interval_s, rec.runner_up_interval_s) if i and len(i) == 2]
    if rec.within_noise and len(intervals) < 2:
        what = "per call" if rec.calls is None else f"for {rec.calls} call{'s' if rec.calls != 1 else ''}"
        return (f"within noise {what}: {rec.best} ({fmt_seconds(rec.best_total_s)}) and {rec.runner_up} "
                f"({fmt_seconds(rec.runner_up_total_s)}) differ by less than 10%; neither is recommended over the other")
    if rec.within_noise:
        what = "per call" if rec.calls is None else f"for {rec.calls} call{'s' if rec.calls != 1 else ''}"
        (a0, a1), (b0, b1) = intervals
        return (f"within noise {what}: {rec.best} ({fmt_seconds(rec.best_total_s)}, interval "
                f"{fmt_seconds(a0)}-{fmt_seconds(a1)}) and {rec.runner_up} ({fmt_seconds(rec.runner_up_total_s)}, "
                f"{fmt_seconds(b0)}-{fmt_seconds(b1)}) cannot be told apart on this machine (measured in interleaved rounds, "
                "the interval of their difference includes zero, or they differ by under 10%); neither is "
                "recommended over the other")
    if rec.calls is None:
        s = (f"steady state: {rec.best} is fastest per call ({fmt_seconds(rec.best_total_s)}), "
             f"{fmt_ratio(rec.ratio)} faster than {rec.runner_up} ({fmt_seconds(rec.runner_up_total_s)})")
        if rec.best_from_call > 1:
            s += f"; counting its first call it is the best choice from call {rec.best_from_call} on"
        return s
    s = (f"for {rec.calls} call{'s' if rec.calls != 1 else ''}: use {rec.best} "
         f"({fmt_seconds(rec.best_total_s)} in total), {fmt_ratio(rec.ratio)} less than {rec.runner_up} "
         f"({fmt_seconds(rec.runner_up_total_s)}, {fmt_seconds(rec.saving_s)} more)")
    if rec.best_from_call > 1 and rec.best_until_call is not None:
        s += (f"; {rec.best} is the best choice for {rec.best_from_call} to {rec.best_until_call} calls, "
              f"{rec.overtaken_by} beyond")
    elif rec.best_from_call > 1:
        s += f"; {rec.best} is the best choice from call {rec.best_from_call} on"
    elif rec.best_until_call is not None:
        n = rec.best_until_call
        s += f"; beyond {n} call{'s' if n != 1 else ''} {rec.overtaken_by} wins"
    else:
        s += f"; {rec.best} wins from the first call"
    return s


def speedup_cell(v: Any) -> str:
    """The "vs reference" cell: the ratio, or "within noise" when the two cannot be told apart."""
    if v.speedup is None:
        return fmt_ratio(None)
    if v.speedup_within_noise:
        return f"{fmt_ratio(v.speedup)} (within noise)"
    return fmt_ratio(v.speedup)


def break_even_cell(name: str, reference: str | None, table: list[BreakEven]) -> str:
    """How ``name`` fares against the reference over a growing number of calls, in a few words."""
    if reference is None or name == reference:
        return "-"
    for be in table:
        if {be.faster, be.slower} != {name, reference}:
            continue
        if be.faster == name:
            return "wins from call 1" if be.break_even_calls is None else f"wins from call {be.faster_from_call:,}"
        if be.break_even_calls is None:
            return "never wins"
        return f"loses from call {be.faster_from_call:,}"
    return "-"


def numerics_lines(result: CompareResult) -> list[str]:
    """One line per output that is not equal to the reference's."""
    lines = []
    for d in result.numerics:
        if d.status == "differs":
            lines.append(f"{d.candidate} differs from {d.reference}: max abs error {fmt_number(d.max_abs_error)}, "
                         f"max rel error {fmt_number(d.max_rel_error)} (tolerance rtol={d.rtol:g}, atol={d.atol:g})")
        elif d.status == "mismatch":
            lines.append(f"{d.candidate} does not match {d.reference}: {d.detail}")
    return lines


def fmt_value(value: Any, unit: str) -> str:
    """Format one cell of a case study table by its column's unit."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)  # a cell the case study filled with text
    if unit == "s":
        return fmt_seconds(value)
    if unit == "x":
        return fmt_ratio(value)
    if unit == "int":
        return f"{int(value):,}"
    if unit == "float":
        return f"{value:.3g}"
    return str(value)


def interval_text(fit: GrowthFit) -> str:
    """A growth exponent's 95% interval, "0.91-1.08"; "-" without one (fewer than three sizes)."""
    if fit.exponent_low is None or fit.exponent_high is None:
        return "-"
    return f"{fit.exponent_low:.2f}-{fit.exponent_high:.2f}"


def stall_lines(stalls: list[Any]) -> list[str]:
    """One sentence per stalled phase (its reports grouped: same function, phase and start), longest first:
    "compile of jit(step) ran 12.3 s (reported at 5.0 s, 10.0 s) at train.py:40 in step"."""
    episodes: dict[tuple[str, str, float], list[Any]] = {}
    for s in stalls:
        episodes.setdefault((s.function, s.phase, round(s.timestamp - s.seconds, 1)), []).append(s)
    out = []
    for reports in sorted(episodes.values(), key=lambda rs: -max(r.ended_after or r.seconds for r in rs)):
        last = reports[-1]
        ran = (f"ran {fmt_seconds(last.ended_after)}" if last.ended_after is not None
               else f"was still running after {fmt_seconds(last.seconds)} when the watch ended")
        at = ", ".join(fmt_seconds(r.seconds) for r in reports)
        where = f" at {last.stack[-1]}" if last.stack else ""
        phase = "first execution" if last.phase == "execute" else last.phase
        out.append(f"{phase} of {last.function} {ran} (reported at {at}){where}")
    return out

def passes_summary(p: CompilePasses) -> str:
    """One sentence: how much of the backend compile the traced XLA passes account for."""
    if p.status != "ok":
        return f"compile anatomy not available: {p.reason}"
    backend = (f"of the {fmt_seconds(p.backend_compile_s)} backend compile" if p.backend_compile_s
               else "(JAX reported no backend compile time)")
    cover = f" ({p.coverage:.0%})" if p.coverage is not None else ""
    text = (f"XLA's passes on {p.compiler_thread or 'the compiling thread'} account for "
            f"{fmt_seconds(p.traced_s)}{cover} {backend}")
    rest = []
    if p.untraced_s:
        rest.append(f"{fmt_seconds(p.untraced_s)} on that thread before XLA's first pass (no trace events there; "
                    "on CPU: converting the StableHLO module to HLO)")
    if p.outside_s:
        rest.append(f"{fmt_seconds(p.outside_s)} in JAX and PjRt around the compiler")
    return text + (f"; the rest: {', '.join(rest)}" if rest else "")


def parallel_summary(p: CompilePasses, top: int = 3) -> str:
    """One sentence on the compiler threads that ran beside the compiling thread ("" when none)."""
    if p.status != "ok" or not p.parallel_threads:
        return ""
    names = ", ".join(f"{q.name} {fmt_seconds(q.seconds)}" for q in p.parallel_passes[:top])
    return (f"in parallel: {fmt_seconds(p.parallel_s)} of CPU time on {p.parallel_threads} other compiler "
            f"thread{'s' if p.parallel_threads != 1 else ''}, overlapping the time above ({names})")


def inspect_command_title(cmd: InspectCommand) -> str:
    """What the ``jitscope inspect`` line explains: "Explain the slowest compile (step #3, 1.2 s)"."""
    what = {"slowest_compile": "the slowest compile", "losing_variant": "the losing variant",
            "largest_size": "the largest size"}.get(cmd.explains, cmd.explains)
    facts = ", ".join(x for x in (cmd.function if cmd.explains == "slowest_compile" else "", cmd.detail,
                                  fmt_seconds(cmd.seconds) if cmd.seconds is not None else "") if x)
    return f"Explain {what}" + (f" ({facts})" if facts else "")


def inspect_command_line(cmd: InspectCommand) -> str:
    """One runnable line: "Explain the slowest compile (step #3, 1.2 s): jitscope inspect prog.py:step ..."."""
    return f"{inspect_command_title(cmd)}: {cmd.shell()}"


_NOT_WRITTEN_PLURAL = {
    "min_compile_time": "compiled in less than the threshold", "not_process_0": "not process 0",
    "host_callbacks": "use host callbacks", "min_entry_size": "below the minimum entry size",
    "cache_disabled": "cache disabled", "unknown": "reason unknown",
}


def cache_write_line(events: list[Any], written: int | None, not_written: dict[str, int] | None) -> str | None:
    """``Cache writes: 1 written; 2 not written (2 compiled in less than the threshold, e.g. f: compiled
    in 0.2 s < 1 s).`` None when no compile carries a persistent-cache record (cache off, older file)."""
    if written is None:
        return None
    parts = [f"{written} written"]
    if not_written:
        why = ", ".join(f"{n} {_NOT_WRITTEN_PLURAL.get(k, k)}" for k, n in sorted(not_written.items(),
                                                                                 key=lambda kv: -kv[1]))
        example = next((e for e in events if e.persistent_cache is not None and e.persistent_cache.enabled
                        and e.persistent_cache.outcome != "hit" and not e.persistent_cache.written), None)
        eg = f", e.g. {example.function}: {example.persistent_cache.why_not_written()}" if example else ""
        parts.append(f"{sum(not_written.values())} not written ({why}{eg})")
    return "Cache writes: " + "; ".join(parts) + "."


# How a diff names a function's change (FunctionDelta.status), in the console and the HTML.
DIFF_STATUS = {"new": "new in B", "vanished": "gone in B", "more_compiles": "more compiles",
               "fewer_compiles": "fewer compiles", "slower": "slower", "faster": "faster", "same": "same"}


def diff_verdict(result: Any) -> str:
    """``5 compiles fewer (7 -> 2): an improvement; compile time: 3.9 s -> 1.1 s, faster`` for a DiffResult."""
    noise = f"{result.time_threshold:.0%} and {fmt_seconds(result.min_seconds)}"
    verdict = {"slower": "slower", "faster": "faster", "within_noise": f"within noise (threshold {noise})"}
    a, b = result.compiles_a, result.compiles_b
    plural = "s" if abs(a - b) != 1 else ""
    compiles = (f"{a - b} compile{plural} fewer ({a} -> {b}): an improvement" if b < a else
                f"{b - a} compile{plural} more ({a} -> {b})" if b > a else f"compiles: {a} in both runs")
    return (f"{compiles}; compile time: {fmt_seconds(result.seconds_a)} -> {fmt_seconds(result.seconds_b)}, "
            f"{verdict[result.time_change]}")


def diff_function_name(d: Any) -> str:
    """A diff row's function: ``step``, or ``step (was train.<locals>.step)`` when A knew it by another name."""
    return f"{d.function} (was {d.function_a})" if d.function_a else d.function


def warmup_line(w: Any) -> str:
    """The warm-up check's sentence (``watch --warmup``), for the console and the HTML."""
    status = f", exit status {w.exit_code}" if w.exit_code not in (None, 0) else ""
    verdict = (f"the program then compiled {w.missed} more: missed by the warm-up" if w.missed
               else "the program then compiled nothing: the warm-up covered every compile")
    waited = getattr(w, "main_guard", None) is False and getattr(w, "main_entries", 0)
    unguarded = (f" ({w.main_entries} entries of the program's own __main__ not warmed: it has no "
                 "`if __name__ == \"__main__\":` to warm them at)") if waited else ""
    return f"warm-up {w.script}: {w.compiles} compiles, {fmt_seconds(w.seconds)}{status}{unguarded}; {verdict}"


def internal_routines_text(result: Any, top: int = 3) -> str:
    """The top routines behind JAX's own compiles: `` (most: jit(add) x4 1.2 s, ...)``, or ``""``."""
    rows = [r for r in getattr(result, "internal_routines", None) or [] if r.compiles][:top]
    if not rows:
        return ""
    return " (most: " + ", ".join(f"{r.name} x{r.compiles} {fmt_seconds(r.seconds)}" for r in rows) + ")"
