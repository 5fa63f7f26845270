"""The ``merge`` command: the per-process watch files of one ``jax.distributed`` job, merged offline.

``jitscope merge RUN_DIR`` reads what each process wrote (``--json`` results ``NAME.p<i>.json``,
``--events`` files ``NAME.p<i>.jsonl``, or ``JITSCOPE=watch``'s ``jitscope-<pid>-<host>-<random>.*.p<i>.*``), takes
each process's compile sequence (its index from the files, never from the name) and names where the
sequences diverge (``analyze/divergence.py``). A process with both a result and an events file is
read from the result (it is complete; the events file may end at a crash).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from .analyze.divergence import ProcessRun, compare_sequences
from .errors import UsageError
from .model import CompileEvent, Environment
from .results import load_result
from .results.merge import MergeResult
from .results.watch import WatchResult

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
    """(is a whole result, the process, its compiles) of one file, or None (with why in ``skipped``)."""
    try:
        text = f.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        skipped.append(f"{f}: cannot read ({getattr(e, 'strerror', None) or e})")
        return None
    try:
        whole = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        whole = None
    if isinstance(whole, dict) and "kind" in whole:
        try:
            result = load_result(f)
        except UsageError as e:
            skipped.append(f"{f}: {e}")
            return None
        if not isinstance(result, WatchResult):
            skipped.append(f"{f}: a '{result.kind}' result, not a watch run")
            return None
        events = list(result.events)
        index = result.process_index if result.process_index is not None else _index(events)
        if index is None:
            skipped.append(f"{f}: not a process of a jax.distributed job (no process index)")
            return None
        for e in events:
            e.process_index = index
        run = ProcessRun(index, str(f), result.program, events[0].pid if events else None, len(events),
                         sum(e.total_seconds for e in events), result.wall_seconds, result.started_at)
        return True, run, events
    events = _event_lines(text)
    if events is None:
        skipped.append(f"{f}: neither a watch --json result nor a watch --events file")
        return None
    index = _index(events)
    if index is None:
        skipped.append(f"{f}: not a process of a jax.distributed job (no process index)")
        return None
    return False, ProcessRun(index, str(f), "", events[0].pid, len(events), sum(e.total_seconds for e in events)), events


def _index(events: Sequence[CompileEvent]) -> int | None:
    found = {e.process_index for e in events}
    return found.pop() if len(found) == 1 else None


def _event_lines(text: str) -> list[CompileEvent] | None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    out = []
    for n, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
            if isinstance(data, dict) and data.get("type") == "program":
                continue  # a program's normalised text (collect/program_text.py), not a compile
            if not isinstance(data, dict) or "function" not in data:
                return None
            out.append(CompileEvent.from_dict(data))
        except (json.JSONDecodeError, RecursionError, TypeError, KeyError, ValueError):
            if n == len(lines) and out:
                break  # a trailing partial line: the process was killed mid-write
            return None
    return out if out or not lines else None
