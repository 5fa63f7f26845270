"""HTML layout for ``diff`` results: the verdict and any ``--fail-on`` breach first, then the functions
that changed, how their programs changed, run B's duplicate compiles and its persistent-cache misses."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ..text import DIFF_STATUS, diff_function_name, diff_verdict
from ._page import Section, esc, lesson, table

if TYPE_CHECKING:
    from ...model import Location
    from ...results.diff import DiffResult


def _where(loc: Location | None) -> str:
    return f"{os.path.basename(loc.file)}:{loc.line}" if loc is not None else "-"


def sections(result: DiffResult) -> list[Section]:
    runs = table(["run", "file", "program", "compiles", "compile seconds"], [
        ("A", result.run_a, result.program_a or "-", result.compiles_a, fmt_seconds(result.seconds_a)),
        ("B", result.run_b, result.program_b or "-", result.compiles_b, fmt_seconds(result.seconds_b))],
        numeric=(3, 4))
    worse = result.time_change == "slower" or result.compiles_b > result.compiles_a
    body = lesson(diff_verdict(result), "warn" if worse else "ok" if result.compiles_b < result.compiles_a else "")
    body += "".join(f'<p class="muted">Note: {esc(n)}.</p>' for n in result.notes)
    if result.fail_on:
        conditions = ",".join(result.fail_on)
        if result.violations:
            body += lesson(f"--fail-on {conditions}: {len(result.violations)} breach"
                           f"{'es' if len(result.violations) != 1 else ''}:", "warn")
            body += "<ul>" + "".join(f"<li>{esc(v)}</li>" for v in result.violations) + "</ul>"
        else:
            body += lesson(f"--fail-on {conditions}: passed", "ok")
    out = [Section("Summary", body + runs)]

    changed = result.changed
    if changed:
        rows = []
        for d in changed:
            causes = d.first_new or ", ".join(d.new_causes)
            if d.vanished_causes:
                causes += ("; " if causes else "") + "gone: " + ", ".join(d.vanished_causes)
            rows.append((diff_function_name(d), _where(d.definition), DIFF_STATUS[d.status], f"{d.compiles_a} -> {d.compiles_b}",
                         f"{fmt_seconds(d.seconds_a)} -> {fmt_seconds(d.seconds_b)}", causes or "-"))
        body = table(["function", "defined", "change", "compiles A -> B", "seconds A -> B", "new causes"], rows)
        same = len(result.functions) - len(changed)
        if same:
            body += f'<p class="muted">{same} other function{"s" if same != 1 else ""} unchanged.</p>'
    else:
        body = lesson(f"No function changed: {len(result.functions)} functions compiled the same number of times, "
                      "for the same causes, in times within noise.", "ok")
    out.append(Section("Functions", body))

    if result.programs:
        out.append(Section("Programs", '<p class="muted">B\'s programs that A never compiled, against the closest '
                           "program of A (normalised StableHLO).</p>" + table(
                               ["function", "defined", "how it changed"],
                               [(c.function, _where(c.definition), c.summary()) for c in result.programs])))
    if result.duplicates:
        wasted = sum(f.seconds for f in result.duplicates)
        out.append(Section("Duplicate compiles in B", f"<p>{len(result.duplicates)} compile"
                           f"{'s' if len(result.duplicates) != 1 else ''} that rebuilt a program already built, "
                           f"{esc(fmt_seconds(wasted))} wasted.</p>" + table(
                               ["code", "function", "what happened", "seconds"],
                               [(f.code, f.function, f.message, fmt_seconds(f.seconds)) for f in result.duplicates],
                               numeric=(3,))))
    if result.cache_misses:
        out.append(Section("Persistent-cache misses", "<p>Compiles that missed the persistent cache in B though "
                           "their counterpart in A hit it or wrote it, and the part of the cache key that "
                           "changed.</p>" + table(
                               ["function", "compile in B", "seconds", "in A", "what changed"],
                               [(m.function, f"#{m.index_b}", fmt_seconds(m.seconds_b), m.outcome_a,
                                 m.summary or m.describe()) for m in result.cache_misses], numeric=(2,))))
    return out
