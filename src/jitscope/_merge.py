"""The ``merge`` command: the per-process watch files of one ``jax.distributed`` job, merged offline.

``jitscope merge RUN_DIR`` reads what each process wrote (``--json`` results ``NAME.p<i>.json``,
``--events`` files ``NAME.p<i>.jsonl``, or ``JITSCOPE=watch``'s ``jitscope-<pid>-<host>-<random>.*.p<i>.*``), takes
each process's compile sequence (its index from the files, never from the name) and names where the
sequences diverge (``analyze/divergence.py``). A process with both a result and an events file is
read from the result (it is complete; the events file may end at a crash).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .analyze.divergence import ProcessRun, compare_sequences
from .errors import UsageError
from .model import CompileEvent, Environment
from .results.merge import MergeResult
from .results.watch_run import read_run

SUFFIXES = (".json", ".jsonl")


def merge(*paths: str | os.PathLike[str]) -> MergeResult:
    """Merge the per-process watch files in ``paths`` (directories are read one level deep).

    Raises:
        UsageError: a path that does not exist, no per-process watch file at all, or two runs of
            one process (files of two jobs in one directory).
    """
    if not paths:
        raise UsageError("merge: give the directory of a job's per-process watch files")
    for p in map(Path, paths):
        if not p.exists():
            raise UsageError(f"{p}: no such file or directory")
    files = files_in(paths)
    skipped: list[str] = []
    results: dict[int, tuple[Path, ProcessRun, list[CompileEvent]]] = {}
    streams: dict[int, tuple[Path, ProcessRun, list[CompileEvent]]] = {}
    for f in files:
        read = _read(f, skipped)
        if read is None:
            continue
        is_result, run, events = read
        into = results if is_result else streams
        if run.process_index in into:
            raise UsageError(f"two runs of process {run.process_index}: {into[run.process_index][0]} and {f}; "
                             "give the files of one job (one directory per run)")
        into[run.process_index] = (f, run, events)
    chosen = {**streams, **results}  # a result is complete; an events file may stop at a crash
    for index, (f, _, _) in streams.items():
        if index in results:
            skipped.append(f"{f}: process {index} is read from {results[index][0]}")
    if not chosen:
        where = ", ".join(map(str, paths))
        raise UsageError(f"merge: no per-process watch files in {where} (each process of a jax.distributed job "
                         "writes them: jitscope watch --events/--json, or JITSCOPE=watch)")
    sequences = {i: chosen[i][2] for i in sorted(chosen)}
    events = [e for i in sorted(chosen) for e in chosen[i][2]]
    return MergeResult(env=Environment.capture(with_jax=False), run_dir=" ".join(map(str, paths)),
                       processes=[chosen[i][1] for i in sorted(chosen)], events=events,
                       divergences=compare_sequences(sequences), skipped=skipped)


def files_in(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files ``merge`` reads: each file given, and each ``.json``/``.jsonl`` file of each directory given
    (one level deep). A path that does not exist is left out (``merge`` refuses it)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.iterdir() if f.is_file() and f.suffix in SUFFIXES)
        elif p.exists():
            files.append(p)
    return files


def _read(f: Path, skipped: list[str]) -> tuple[bool, ProcessRun, list[CompileEvent]] | None:
    """(is a whole result, the process, its compiles) of one file, or None (with why in ``skipped``). Read as
    ``diff`` and ``warmup`` read runs (``results.watch_run.read_run``): a file they refuse is skipped here."""
    try:
        result, events = read_run(f, "merge reads watch runs")
    except UsageError as e:
        skipped.append(str(e) if str(e).startswith(str(f)) else f"{f}: {e}")
        return None
    index = result.process_index if result is not None and result.process_index is not None else _index(events)
    if index is None:
        skipped.append(f"{f}: not a process of a jax.distributed job (no process index)")
        return None
    for e in events:
        e.process_index = index
    pid = events[0].pid if events else None
    if result is not None:
        return True, ProcessRun(index, str(f), result.program, pid, len(events), sum(e.total_seconds for e in events),
                                result.wall_seconds, result.started_at), events
    return False, ProcessRun(index, str(f), "", pid, len(events), sum(e.total_seconds for e in events)), events


def _index(events: Sequence[CompileEvent]) -> int | None:
    found = {e.process_index for e in events}
    return found.pop() if len(found) == 1 else None
