"""Terminal summary of a ``WatchResult``: functions worst first, recompiles with reasons, fixes by saving."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import fmt_seconds, watch_findings

if TYPE_CHECKING:
    from rich.console import Console

    from ...model import Location
    from ...results.watch import WatchResult

MAX_EVENTS_SHOWN = 20


def _where(loc: Location | None, short: bool = False) -> str:
    if loc is None:
        return "-"
    f = loc.file
    if short:
        return f"{os.path.basename(f)}:{loc.line}"
    try:
        rel = os.path.relpath(f)
        if not rel.startswith(".."):
            f = rel
    except ValueError:
        pass
    return f"{f}:{loc.line}"


def render(result: WatchResult, console: Console) -> None:
    """Print the watch summary."""
    from rich.table import Table

    n = len(result.events)
    secs = result.compile_seconds
    share = f" ({secs / result.wall_seconds:.0%} of {fmt_seconds(result.wall_seconds)} wall)" \
        if result.wall_seconds > 0 else ""
    title = f"jitscope watch: {result.program}" if result.program else "jitscope watch"
    console.print(f"[bold]{title}[/bold]")
    console.print(f"{n} compile{'s' if n != 1 else ''} of your jitted functions, {fmt_seconds(secs)}{share}; "
                  f"{len(result.recompiles)} recompile{'s' if len(result.recompiles) != 1 else ''}. "
                  f"JAX internal (eager ops, jnp routines): {result.internal_compiles} compiles, "
                  f"{fmt_seconds(result.internal_seconds)}.")
    if result.exit_code not in (None, 0):
        console.print(f"program exited with status {result.exit_code}; the summary covers every compile up to then")
    if result.crash is not None:
        c = result.crash
        from rich.markup import escape

        console.print(f"[bold red]why it failed:[/bold red] {escape(c.message)}")
        if c.fix is not None:
            console.print(f"  fix: {c.fix.title}. {c.fix.description}", markup=False)
    if not n:
        watch_findings.render(result, console)
        _cache(result, console)
        _violations(result, console)
        return

    t = Table(title="Compiles per function (worst first)", title_justify="left")
    for col, kw in (("function", {}), ("defined at", {}), ("compiles", {"justify": "right"}),
                    ("seconds", {"justify": "right"}), ("% wall", {"justify": "right"}), ("why", {})):
        t.add_column(col, **kw)  # type: ignore[arg-type]
    for fs in result.functions:
        why = ", ".join(f"{k.replace('_', ' ')} x{v}" for k, v in fs.reasons.items() if k != "first_compile")
        t.add_row(fs.function, _where(fs.definition, short=True), str(fs.compiles), fmt_seconds(fs.seconds),
                  f"{fs.share_of_wall:.1%}" if fs.share_of_wall is not None else "-", why or "-")
    console.print(t)

    if result.fixes:  # what to do first, then the evidence
        console.print("[bold]Fixes, largest saving in this run first[/bold]")
        for i, fx in enumerate(result.fixes, 1):
            console.print(f"  {i}. [bold]{fx.title}[/bold]: saves {fmt_seconds(fx.saving_seconds)}, "
                          f"{fx.saving_compiles or 0} compile{'s' if fx.saving_compiles != 1 else ''} "
                          f"(at {_where(fx.location)})")
            console.print(f"     [dim]{fx.description}[/dim]")

    watch_findings.render(result, console)  # runtime findings (JWxxx), after the fixes
    rec = result.recompiles
    if rec:
        console.print("[bold]Recompiles, by function and cause[/bold]")
        groups = _groups(rec)
        for events in groups[:MAX_EVENTS_SHOWN]:
            first = events[0]
            r = first.reason
            detail = (r.detail if r else "")
            detail = detail if len(detail) <= 200 else detail[:197] + "..."
            if len(events) == 1:
                console.print(f"  #{first.index} {first.function} at {_where(first.call_site)}: "
                              f"[bold]{r.category if r else '?'}[/bold] {detail} ({fmt_seconds(first.total_seconds)})")
                continue
            sites = list(dict.fromkeys(_where(e.call_site, short=True) for e in events))
            where = ", ".join(sites[:3]) + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")
            seconds = sum(e.total_seconds for e in events)
            console.print(f"  {first.function}: [bold]{r.category if r else '?'}[/bold] x{len(events)} "
                          f"({fmt_seconds(seconds)}) at {where}; first #{first.index}: {detail}")
        if len(groups) > MAX_EVENTS_SHOWN:
            console.print(f"  ... and {len(groups) - MAX_EVENTS_SHOWN} more groups (see --events / --json)")
        other = [e for e in rec if e.reason and e.reason.category == "other" and e.reason.explanation]
        for e in other[:3]:
            text = "\n".join("    " + ln for ln in e.reason.explanation.splitlines())  # type: ignore[union-attr]
            console.print(f"  JAX's explanation for #{e.index}:\n{text}", markup=False)

    _cache(result, console)
    _violations(result, console)


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
        # JAX reports no saving for entries written without their compile time: say so, not "saved 0 s".
        saved = (f"saved {fmt_seconds(c.seconds_saved)}" if c.seconds_saved > 0 or not c.hits
                 else "(JAX reported no time saved)")
        console.print(f"Persistent compilation cache: on ({c.directory}); {c.hits} hits {saved}, "
                      f"{c.misses} misses.", markup=False)
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
