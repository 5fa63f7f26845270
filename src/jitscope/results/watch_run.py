"""A saved watch run, read back: a ``jitscope watch --json`` result or an ``--events`` JSONL file.

``jitscope diff`` and ``jitscope warmup`` both read runs, and must accept the same files and refuse the
same wrong ones in the same words; this is the one reader.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .._files import is_regular_file, read_text
from ..collect.program_text import ProgramText
from ..errors import UsageError
from ..model import CompileEvent
from ..schema.check import record_problem
from ._base import result_from_text
from .watch import WatchResult


def load_run(path: str | os.PathLike[str], command: str = "diff compares watch runs") -> tuple[str, list[CompileEvent]]:
    """A run's program and compile events, from a watch ``--json`` result or an ``--events`` JSONL file.

    ``command`` ends the message for a saved result of another kind (``diff compares watch runs``).

    Raises:
        UsageError: a missing or unreadable file, an empty one (no run: even one that compiled nothing
            has its header line), a device (``/dev/null``, ``/dev/zero``), a result of another kind, a line
            that is not an event (of the wrong type included).
    """
    result, events = read_run(path, command)
    return (result.program if result is not None else ""), events


@dataclass
class SavedRun:
    """A watch run read from one file, once: the saved result (None for an events file), its compile events
    and its program table (normalised programs by fingerprint)."""

    result: WatchResult | None
    events: list[CompileEvent]
    programs: dict[str, ProgramText]

    @property
    def program(self) -> str:
        return self.result.program if self.result is not None else ""


def read_saved_run(path: str | os.PathLike[str], command: str = "diff compares watch runs") -> SavedRun:
    """The run in ``path``, read once (a pipe, ``<(...)``, can be read only once): the one reader of
    ``diff``, ``warmup`` and ``merge``, which accept and refuse the same files.

    Raises:
        UsageError: as ``load_run``; also a program line that does not match its schema.
    """
    text, result = _read(path)
    if result is not None:
        if not isinstance(result, WatchResult):
            raise UsageError(f"{path}: holds a '{result.kind}' result; {command} "
                             "(jitscope watch --json or --events)")
        return SavedRun(result, list(result.events), {p.fingerprint: p for p in getattr(result, "programs", [])})
    return SavedRun(None, _events_lines(path, text), _program_lines(path, text))


def read_run(path: str | os.PathLike[str],
             command: str = "diff compares watch runs") -> tuple[WatchResult | None, list[CompileEvent]]:
    """``(the saved result, its events)`` of a watch ``--json`` file, ``(None, events)`` of an ``--events``
    file (``read_saved_run``).

    Raises:
        UsageError: as ``load_run``.
    """
    run = read_saved_run(path, command)
    return run.result, run.events


def _read(path: str | os.PathLike[str]) -> tuple[str, object]:
    """The file's text, and the saved result it holds (None: an events file, read line by line)."""
    text = read_text(path)
    if not text.strip():
        raise UsageError(f"{path}: empty: not a watch run (even a run that compiled nothing writes its header "
                         "line; a run that crashed before watching started, or a lost file, has none)")
    try:
        whole = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        whole = None
    return text, (result_from_text(path, text) if isinstance(whole, dict) and "kind" in whole else None)


def recorded_sources(path: str | os.PathLike[str]) -> list[str]:
    """The source files a saved run or result recorded: the program, each compiled function's definition
    file and call site (outputs must never overwrite them). Best effort and silent: [] for anything that is
    not a regular file holding a watch run (the command that reads it says what is wrong with it)."""
    if not is_regular_file(path):
        return []  # a pipe is read once, by the command; a device is refused there
    try:
        program, events = load_run(path)
    except UsageError:
        return []
    files = [program] if program and not program.startswith("-m ") else []
    for e in events:
        for loc in (e.definition, e.call_site):
            if loc is not None and loc.file and not loc.file.startswith("<"):
                files.append(loc.file)
    return sorted(set(files))


def _events_lines(path: str | os.PathLike[str], text: str) -> list[CompileEvent]:
    lines = text.splitlines()
    events = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if n == len(lines) and events:
                break  # a trailing partial line: the watched program was killed mid-write
            raise UsageError(f"{path}:{n}: neither a watch --json result nor a watch --events line") from None
        if isinstance(data, dict) and "type" in data:
            continue  # the run's header line, a program's normalised text (load_programs): not compiles
        problem = record_problem(data, "CompileEvent") if isinstance(data, dict) else "not a JSON object"
        if problem:
            raise UsageError(f"{path}:{n}: not a watch --events line: {problem}")
        events.append(CompileEvent.from_dict(data))
    return events


def load_programs(path: str | os.PathLike[str]) -> dict[str, ProgramText]:
    """A run's program table (normalised programs by fingerprint, ``collect/program_text.py``): a watch
    result's ``programs``, or the ``{"type": "program"}`` lines of an events file. Reads the file again:
    ``read_saved_run`` reads events and programs at once.

    Raises:
        UsageError: a program line that does not match its schema.
    """
    return read_saved_run(path).programs


def _program_lines(path: str | os.PathLike[str], text: str) -> dict[str, ProgramText]:
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(data, dict) and data.pop("type", None) == "program":
            problem = record_problem(data, "ProgramText")
            if problem:
                raise UsageError(f"{path}:{n}: not a watch --events program line: {problem}")
            entry = ProgramText.from_dict(data)
            out[entry.fingerprint] = entry
    return out
