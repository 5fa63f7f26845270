"""Do the processes of a ``jax.distributed`` job compile the same programs, in the same order?

In SPMD every process must run the same programs: a process that compiles something else (another
shape, another function, the same function lowered differently) meets its peers in a collective
that is not theirs, and the job hangs with no message. These functions compare the processes'
compile sequences position by position (compile 0 with compile 0, ...) and name the first
position where they differ, which processes differ there and in what.

Three kinds of divergence, each reported at its first position:

* ``program``: the processes compiled different programs here (function, definition, argument
  signature, transformation, or ``fingerprint`` when every process has one; None is unknown, never
  a difference), or some compiled nothing more. Certain: they run different code from here on.
* ``call_site``: the same program, reached from different lines.
* ``cache``: the same program, a persistent-cache hit on some and a miss on others (the ones
  that missed reach the next collective late). Only where every process knows hit or miss.

After the first ``program`` divergence the sequences no longer line up, so the two weaker kinds
are looked for only before it. Pure functions over ``CompileEvent`` lists; no JAX.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..model import CompileEvent, Location

PROGRAM_FIELDS = ("function", "definition", "signature", "transform", "fingerprint")
KINDS = ("program", "call_site", "cache")


@dataclass
class ProcessGroup(Record):
    """Processes that agree at one position, and what they compiled there (None: nothing, their
    sequence had ended)."""

    processes: list[int] = field(default_factory=list)
    event: CompileEvent | None = None


@dataclass
class Divergence(Record):
    """The first position where the processes' compile sequences differ, of one kind."""

    position: int  # 0-based: the (position+1)-th compile of each process
    kind: str  # one of KINDS
    differs: list[str] = field(default_factory=list)  # PROGRAM_FIELDS, "call_site", "cache_hit", "missing"
    processes: list[int] = field(default_factory=list)  # those not in the reference group
    groups: list[ProcessGroup] = field(default_factory=list)  # reference group first (largest; process 0's on a tie)


@dataclass
class ProcessRun(Record):
    """One process of the job as its watch files tell it."""

    process_index: int
    source: str = ""  # the file read
    program: str = ""
    pid: int | None = None
    compiles: int = 0
    compile_seconds: float = 0.0
    wall_seconds: float | None = None
    started_at: float | None = None  # time.time() its watch started (aligns the processes' timelines)


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _where(loc: Location | None) -> tuple[str, int] | None:
    # By file name, not path: processes on different hosts run the script from different checkouts.
    return (os.path.basename(loc.file), loc.line) if loc is not None else None


def _signature(e: CompileEvent) -> str | None:
    sig = e.signature
    if sig is None:
        return None
    # Shardings name devices, and each process holds different local devices: a single-device
    # sharding differs across processes for the same program. Object addresses differ too.
    shardings = [leaf.sharding for leaf in sig.leaves if leaf.sharding and "SingleDevice" not in leaf.sharding]
    return _ADDRESS.sub("0x_", "; ".join([sig.short(), sig.treedef, *shardings]))


def field_values(e: CompileEvent) -> dict[str, Any]:
    """What is compared, per field (fingerprint None: unknown)."""
    return {"function": e.function, "definition": _where(e.definition), "signature": _signature(e),
            "transform": e.transform, "fingerprint": e.fingerprint, "call_site": _where(e.call_site),
            "cache_hit": e.cache_hit}


def program_key(e: CompileEvent, with_fingerprint: bool = False) -> tuple:
    """What makes two compiles the same program (a peer compiled it too)."""
    v = field_values(e)
    return tuple(v[f] for f in PROGRAM_FIELDS if f != "fingerprint" or with_fingerprint)


def compare_sequences(sequences: Mapping[int, Sequence[CompileEvent]]) -> list[Divergence]:
    """The first divergence of each kind, by position; empty when every process compiled the same
    programs in the same order from the same lines with the same cache outcome (or there is one process)."""
    procs = sorted(sequences)
    if len(procs) < 2:
        return []
    longest = max(len(sequences[p]) for p in procs)
    found: list[Divergence] = []
    seen: set[str] = set()
    for pos in range(longest):
        at = {p: (sequences[p][pos] if pos < len(sequences[p]) else None) for p in procs}
        present = [e for e in at.values() if e is not None]
        fingerprints = all(e.fingerprint is not None for e in present)
        d = _diverge(pos, "program", at, lambda e, fp=fingerprints: program_key(e, fp))
        if d is not None:
            found.append(d)
            break  # the sequences no longer line up
        for kind, key in (("call_site", lambda e: _where(e.call_site)), ("cache", lambda e: e.cache_hit)):
            if kind in seen or (kind == "cache" and any(e.cache_hit is None for e in present)):
                continue
            d = _diverge(pos, kind, at, key)
            if d is not None:
                seen.add(kind)
                found.append(d)
    return found


def _diverge(pos: int, kind: str, at: Mapping[int, CompileEvent | None],
             key: Callable[[CompileEvent], Any]) -> Divergence | None:
    groups: dict[Any, list[int]] = {}
    for p, e in at.items():
        groups.setdefault(("<none>",) if e is None else ("k", key(e)), []).append(p)
    if len(groups) < 2:
        return None
    ordered = sorted(groups.values(), key=lambda ps: (-len(ps), min(ps)))
    return Divergence(position=pos, kind=kind, differs=_differs([at[p] for p in at]),
                      processes=sorted(p for ps in ordered[1:] for p in ps),
                      groups=[ProcessGroup(sorted(ps), at[ps[0]]) for ps in ordered])


def _differs(events: Sequence[CompileEvent | None]) -> list[str]:
    present = [e for e in events if e is not None]
    out = ["missing"] if len(present) < len(events) else []
    values = [field_values(e) for e in present]
    for name in (*PROGRAM_FIELDS, "call_site", "cache_hit"):
        seen = [v[name] for v in values]
        if name in ("fingerprint", "cache_hit") and any(s is None for s in seen):
            continue  # unknown on some process: never counted as a difference
        if len({repr(s) for s in seen}) > 1:
            out.append(name)
    return out


def unmatched_programs(mine: Sequence[tuple[float, CompileEvent]], me: int, count: int,
                       sequences: Mapping[int, Sequence[CompileEvent]], now: float,
                       timeout: float) -> list[tuple[CompileEvent, list[int], float]]:
    """This process's compiles published more than ``timeout`` seconds ago that some peer has not
    compiled anywhere in its sequence: ``(event, the peers lacking it, seconds since)``. The hang
    case: this process is likely waiting for them in a collective of that program."""
    peers = [p for p in range(count) if p != me]  # a peer that published nothing lacks everything
    have = {p: {program_key(e) for e in sequences.get(p, ())} for p in peers}
    out = []
    for at, e in mine:
        if now - at < timeout:
            continue
        lacking = [p for p in peers if program_key(e) not in have[p]]
        if lacking:
            out.append((e, lacking, now - at))
    return out
