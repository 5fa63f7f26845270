"""Terminal summary of a ``WatchResult``: functions worst first, recompiles with reasons, fixes by saving."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..._format import shown_program, shown_where
from ..text import cache_write_line, internal_routines_text, stall_lines, warmup_line
from . import fmt_seconds, watch_findings

if TYPE_CHECKING:
    from rich.console import Console

    from ...model import Location
    from ...results.watch import WatchResult

# The summary stays short however many compiles and functions a run has (#11: 1,000 compiles in at
# most 30 lines); everything is in --json / --events.
MAX_EVENTS_SHOWN = 5  # recompile groups (function, cause)
MAX_FUNCTIONS_SHOWN = 5
MAX_FIXES_SHOWN = 3  # with more, their descriptions are left to --json too


def _where(loc: Location | None, short: bool = False) -> str:
    if loc is None:
        return "-"
    if short:
        return f"{os.path.basename(loc.file)}:{loc.line}"
    return shown_where(loc.file, loc.line)


def _stalls(result: WatchResult, console: Console) -> None:
    if result.stalls:
        console.print("[bold]Stalls[/bold] (compile phases past --stall-after)")
        for line in stall_lines(result.stalls):
            console.print(f"  {line}", markup=False)


def render(result: WatchResult, console: Console) -> None:
    """Print the watch summary."""
    from rich.markup import escape
    from rich.table import Table

    n = len(result.events)
    secs = result.compile_seconds
    share = f" ({secs / result.wall_seconds:.0%} of {fmt_seconds(result.wall_seconds)} wall)" \
        if result.wall_seconds > 0 else ""
    title = f"jitscope watch: {shown_program(result.program)}" if result.program else "jitscope watch"
    console.print(f"[bold]{title}[/bold]")
    console.print(f"{n} compile{'s' if n != 1 else ''} of your jitted functions, {fmt_seconds(secs)}{share}; "
                  f"{len(result.recompiles)} recompile{'s' if len(result.recompiles) != 1 else ''}. "
                  f"JAX internal (eager ops, jnp routines): {result.internal_compiles} compiles, "
                  f"{fmt_seconds(result.internal_seconds)}{internal_routines_text(result)}.", markup=False)
    if result.warmup is not None:
        line = warmup_line(result.warmup)
        console.print(line + (" (below)." if result.warmup.missed else "."), markup=False)
    if result.exit_code not in (None, 0):
        console.print(f"program exited with status {result.exit_code}; the summary covers every compile up to then")
    if result.crash is not None:
        c = result.crash
        console.print(f"[bold red]why it failed:[/bold red] {escape(c.message)}")
        if c.fix is not None:
            console.print(f"  fix: {c.fix.title}. {c.fix.description}", markup=False)
            _code_change(c.fix, console)
    if not n:
        watch_findings.render(result, console)
        _stalls(result, console)
        _cache(result, console)
        _violations(result, console)
        return

    t = Table(title="Compiles per function (worst first)", title_justify="left")
    for col, kw in (("function", {}), ("defined at", {}), ("compiles", {"justify": "right"}),
                    ("seconds", {"justify": "right"}), ("% wall", {"justify": "right"}), ("why", {})):
        t.add_column(col, **kw)  # type: ignore[arg-type]
    for fs in result.functions[:MAX_FUNCTIONS_SHOWN]:
        why = ", ".join(f"{k.replace('_', ' ')} x{v}" for k, v in fs.reasons.items() if k != "first_compile")
        t.add_row(fs.function, _where(fs.definition, short=True), str(fs.compiles), fmt_seconds(fs.seconds),
                  f"{fs.share_of_wall:.1%}" if fs.share_of_wall is not None else "-", why or "-")
    rest = result.functions[MAX_FUNCTIONS_SHOWN:]
    if rest:
        t.add_row(f"... {len(rest)} more", "", str(sum(f.compiles for f in rest)),
                  fmt_seconds(sum(f.seconds for f in rest)), "", "see --json")
    console.print(t)

    if result.fixes:  # what to do first, then the evidence
        console.print("[bold]Fixes, largest saving in this run first[/bold]")
        told: set[str] = set()
        for i, fx in enumerate(result.fixes[:MAX_FIXES_SHOWN], 1):
            console.print(f"  {i}. [bold]{fx.title}[/bold]: saves {fmt_seconds(fx.saving_seconds)}, "
                          f"{fx.saving_compiles or 0} compile{'s' if fx.saving_compiles != 1 else ''} "
                          f"(at {_where(fx.location)})")
            how = fx.description.split(": `", 1)[0]  # a bucketing fix's axes differ; its advice does not
            if how not in told and len(result.fixes) <= MAX_FIXES_SHOWN:
                told.add(how)
                console.print(f"     [dim]{fx.description}[/dim]")
            _code_change(fx, console)
        more = result.fixes[MAX_FIXES_SHOWN:]
        if more:
            console.print(f"  ... and {len(more)} more fixes ({sum(f.saving_compiles or 0 for f in more)} "
                          "compiles; all in --json)")
        total = result.fixes_total
        if total is not None and len(result.fixes) > 1:
            overlap = (f"; the fixes overlap (their savings add up to {total.sum_of_fixes}), each compile "
                       "counted once" if total.sum_of_fixes > total.compiles else "")
            console.print(f"  All {len(result.fixes)} fixes applied: {total.compiles} compile"
                          f"{'s' if total.compiles != 1 else ''} fewer, {fmt_seconds(total.seconds)} "
                          f"({total.remaining_compiles} left){overlap}.")
    for x in result.expected_recompiles:
        what = "sets a shape" if x.why == "sets a shape" else "is not a number, so it cannot be traced"
        console.print(f"Expected, not a fix: {x.function} recompiles {x.compiles}x for static `{x.argument}`, "
                      f"which {what} (at {_where(x.location)}); each value is its own program.", markup=False)

    watch_findings.render(result, console)  # runtime findings (JWxxx), after the fixes
    _stalls(result, console)
    rec = result.recompiles
    if rec:
        console.print("[bold]Recompiles, by function and cause[/bold]")
        groups = _groups(rec)
        # One console line per group when there are more than fit, else at most two.
        crowded = len(groups) > MAX_EVENTS_SHOWN
        room = (console.width - 1) * (1 if crowded else 2)
        for events in groups[:MAX_EVENTS_SHOWN]:
            first = events[0]
            r = first.reason
            cat = r.category if r else "?"
            detail = (r.detail if r else "")
            if len(events) == 1:
                via = f" (via {_where(first.library_site, short=True)})" if first.library_site else ""
                head = f"  #{first.index} {first.function} at {_where(first.call_site, short=crowded)}{via}: {cat} "
                tail = f" ({fmt_seconds(first.total_seconds)})"
            else:
                sites = list(dict.fromkeys(_where(e.call_site, short=True) for e in events))
                where = ", ".join(sites[:3]) + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")
                seconds = sum(e.total_seconds for e in events)
                head = f"  {first.function}: {cat} x{len(events)} ({fmt_seconds(seconds)}) at {where}; first #{first.index}: "
                tail = ""
            fit = max(room - len(head) - len(tail), 20)
            detail = detail if len(detail) <= min(fit, 200) else detail[:min(fit, 200) - 3] + "..."
            text = escape(head + detail + tail)
            console.print(text.replace(f" {cat} ", f" [bold]{cat}[/bold] ", 1), highlight=False)
        if len(groups) > MAX_EVENTS_SHOWN:
            n_more = sum(len(g) for g in groups[MAX_EVENTS_SHOWN:])
            console.print(f"  ... and {len(groups) - MAX_EVENTS_SHOWN} more groups, {n_more} recompiles "
                          "(see --events / --json)")
        other = [e for e in rec if e.reason and e.reason.category == "other" and e.reason.explanation]
        for e in other[:3]:
            text = "\n".join("    " + ln for ln in e.reason.explanation.splitlines())  # type: ignore[union-attr]
            console.print(f"  JAX's explanation for #{e.index}:\n{text}", markup=False)

    if result.inspect_command is not None:
        from ..text import inspect_command_line

        console.print(inspect_command_line(result.inspect_command), markup=False, soft_wrap=True)
    _cache(result, console)
    if result.dump is not None:
        timed = sum(1 for c in result.dump.compiles if "passes" in c.files)
        passes = f", XLA pass times of {timed}" if timed else ""
        console.print(f"Dump: jaxpr, StableHLO and optimised HLO of {len(result.dump.compiles)} compiles{passes} in "
                      f"{result.dump.directory} (index.json).", markup=False)
    _violations(result, console)


def _code_change(fx, console: Console) -> None:  # type: ignore[no-untyped-def]
    """The changed code of a fix, under its description, as the lines would read."""
    loc = fx.location
    if not fx.replacement or loc is None:
        return
    span = f"{loc.line}-{loc.end_line}" if loc.end_line and loc.end_line != loc.line else f"{loc.line}"
    where = f"{_where(loc).rsplit(':', 1)[0]} line{'s' if '-' in span else ''} {span}"
    if "\n" not in fx.replacement:
        console.print(f"     change {where} to: {fx.replacement.strip()}", markup=False, highlight=False)
        return
    console.print(f"     change {where} to:", markup=False)
    for line in fx.replacement.splitlines():
        console.print(f"     | {line}", markup=False, highlight=False, soft_wrap=True)


def _groups(events: list) -> list[list]:  # type: ignore[type-arg]
    """Recompiles grouped by (function, definition, cause), in order of first appearance."""
    out: dict[tuple, list] = {}  # type: ignore[type-arg]
    for e in events:
        key = (e.function, str(e.definition), e.reason.category if e.reason else "?")
        out.setdefault(key, []).append(e)
    return list(out.values())


def _cache(result: WatchResult, console: Console) -> None:
    c = result.persistent_cache
    thr = f"{c.min_compile_seconds:g} s" if c.min_compile_seconds is not None else "1 s"
    if c.enabled:
        # JAX keeps an entry's compile time in whole seconds (``int(compile_time_secs)``, JAX 0.10), so a
        # hit on a compile under 1 s reports no saving: say so, not "saved 0 s".
        saved = (f"saved {fmt_seconds(c.seconds_saved)}" if c.seconds_saved > 0 or not c.hits
                 else "(JAX reported no time saved: it keeps compile times in whole seconds)")
        console.print(f"Persistent compilation cache: on ({c.directory}); {c.hits} hits {saved}, "
                      f"{c.misses} misses.", markup=False)
        writes = cache_write_line(result.events, c.written, c.not_written)
        if writes:
            console.print(writes, markup=False)
    else:
        console.print("Persistent compilation cache: off (set jax_compilation_cache_dir to turn it on).")
    compiled = [e for e in result.events if "compile" in e.phases]
    if c.enabled and compiled and all(e.cache_hit is True for e in compiled):
        console.print(f"On a rerun: nothing more to save, the cache is warm (all {len(compiled)} compiles "
                      "were loaded from it).")
    elif c.rerun_cacheable_compiles:
        when = "with a warm cache" if c.enabled else "with the cache on and warm"
        console.print(f"On a rerun {when}: {c.rerun_cacheable_compiles} compiles at or above the "
                      f"{thr} threshold (jax_persistent_cache_min_compile_time_secs) would load instead of "
                      f"compiling, saving about {fmt_seconds(c.rerun_saving_seconds)}.")
    elif compiled:
        below = sum(e.phases.get("compile", 0.0) for e in compiled if e.cache_hit is not True)
        skip = (f"; with it at 0 a rerun would skip about {fmt_seconds(below)} of backend compile"
                if below > 0 else "")
        console.print(f"On a rerun the persistent cache would save nothing: no compile reaches the {thr} "
                      f"threshold (jax_persistent_cache_min_compile_time_secs){skip}.")


def _violations(result: WatchResult, console: Console) -> None:
    for v in result.violations:
        console.print(f"[bold red]budget exceeded:[/bold red] {v}")

