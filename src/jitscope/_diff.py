"""The ``diff`` command: compare two watch runs of a program (saved ``--json`` results or ``--events`` files).

``jitscope diff RUN_A RUN_B`` answers what CI asks after a change: which functions compile more
(or for a new reason), which compile slower beyond run-to-run noise, and whether that breaks a
``--fail-on`` condition. Functions are matched by module and qualified name, lambdas by the program
they compiled (``analyze/run_identity.py``); only a regression of a function both runs have (or the
recompiles of a new one) breaks a condition, so a change that removes compiles passes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .analyze.cache_diff import cache_miss_causes
from .analyze.duplicates import duplicate_findings
from .analyze.program_diff import compare_runs
from .analyze.run_diff import diff_events, fail_on_violations, time_change
from .analyze.run_identity import match_functions
from .errors import UsageError
from .model import Environment
from .results.diff import DiffResult
from .results.watch_run import load_run as load_run
from .results.watch_run import read_saved_run

FAIL_ON = ("new-compiles", "new-causes", "time:PCT")


def check_fail_on(conditions: Sequence[str]) -> list[str]:
    """Validate ``--fail-on`` conditions (one line on a bad one) and return them."""
    out = []
    for c in conditions:
        c = c.strip()
        if c in ("new-compiles", "new-causes"):
            out.append(c)
            continue
        if c.startswith("time:"):
            try:
                pct = float(c[5:].rstrip("%"))
            except ValueError:
                pct = float("nan")
            if pct == pct and 0 <= pct < 1e6:  # not NaN, not negative
                out.append(f"time:{pct:g}")
                continue
        raise UsageError(f"--fail-on: '{c}' is not one of new-compiles, new-causes, time:PCT (e.g. time:20)")
    return out


def diff(run_a: str | os.PathLike[str], run_b: str | os.PathLike[str], *, fail_on: Sequence[str] = (),
         time_threshold: float = 0.25, min_seconds: float = 0.05) -> DiffResult:
    """Compare two watch runs: per function compiles, compile seconds and recompile causes, B against A.

    ``time_threshold`` (a fraction) and ``min_seconds``: a compile-time change counts only when it
    passes both; ``fail_on`` (``new-compiles``, ``new-causes``, ``time:PCT``) fills ``violations``
    (``analyze/run_diff.fail_on_violations`` says what each means).

    Raises:
        UsageError: a file that is missing, unreadable, or neither a watch result nor an events file.
    """
    if not (time_threshold >= 0 and min_seconds >= 0):  # also refuses NaN
        raise UsageError("--time-threshold and --min-seconds must be numbers >= 0")
    conditions = check_fail_on(fail_on)
    saved_a, saved_b = read_saved_run(run_a), read_saved_run(run_b)  # each file read once (it may be a pipe)
    program_a, a, programs_a = saved_a.program, saved_a.events, saved_a.programs
    program_b, b, programs_b = saved_b.program, saved_b.events, saved_b.programs
    matches, notes = match_functions(a, b)
    deltas = diff_events(a, b, rel=time_threshold, min_seconds=min_seconds, matches=matches)
    sa, sb = sum(e.total_seconds for e in a), sum(e.total_seconds for e in b)
    misses, changes = cache_miss_causes(a, b, matches), compare_runs(a, programs_a, b, programs_b, matches)
    _explain_computation(misses, changes)
    return DiffResult(
        env=Environment.capture(with_jax=False), run_a=os.fspath(run_a), run_b=os.fspath(run_b),
        program_a=program_a, program_b=program_b, compiles_a=len(a), compiles_b=len(b), seconds_a=sa,
        seconds_b=sb, time_change=time_change(sa, sb, time_threshold, min_seconds), functions=deltas,
        time_threshold=time_threshold, min_seconds=min_seconds, fail_on=conditions,
        violations=fail_on_violations(deltas, conditions, min_seconds), notes=notes,
        cache_misses=misses, programs=changes, duplicates=duplicate_findings(b, programs_b))


def _explain_computation(misses: Sequence, changes: Sequence) -> None:
    """A miss whose changed key component is the computation says how the program changed, when the
    program comparison found one change for that function ("computation: differs only in constants:
    0.1 in A, 0.01 in B"); with several changed programs of one function it keeps the bare name."""
    def file_of(loc: object) -> tuple[str, int] | None:
        return (os.path.basename(loc.file), loc.line) if loc is not None else None  # type: ignore[attr-defined]

    by_function: dict[tuple, list] = {}
    for c in changes:
        by_function.setdefault((c.function, file_of(c.definition)), []).append(c)
    for m in misses:
        found = by_function.get((m.function, file_of(m.definition)), [])
        if len(found) == 1 and any(ch.name == "computation" for ch in m.changed):
            m.summary = f"{m.summary or m.describe()} ({found[0].summary()})"
