"""Sentences about a multi-process job's compile sequences, shared by ``jitscope merge``'s console and
HTML reports and by watch's live lines in a ``jax.distributed`` job."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .arguments import arguments

if TYPE_CHECKING:
    from ..analyze.divergence import Divergence
    from ..model import CompileEvent, Location

WHAT = {
    "program": "the processes compiled different programs: from here on they run different code, and a "
               "collective in it waits forever for peers that never reach it",
    "call_site": "the same program, called from different lines (the processes took different paths)",
    "cache": "the same program, a persistent-cache hit on some processes and a miss on others (those that "
             "missed reach the next collective late)",
}


def processes(ps: Sequence[int]) -> str:
    """``process 1`` / ``processes 0, 2``."""
    return f"process {ps[0]}" if len(ps) == 1 else "processes " + ", ".join(map(str, ps))


def where(loc: Location | None) -> str:
    return f"{os.path.basename(loc.file)}:{loc.line}" if loc is not None else "?"


def compile_text(e: CompileEvent | None) -> str:
    """``prep(f32[5]) at prog.py:25 (defined prog.py:10), cache miss``; ``nothing (its compiles ended)``."""
    if e is None:
        return "nothing (its compiles had ended)"
    sig = arguments(e.signature) if e.signature is not None else "?"
    out = f"{e.function}({sig})"
    if e.transform:
        out += f" under {e.transform}"
    out += f" at {where(e.call_site)} (defined {where(e.definition)})"
    if e.fingerprint:
        out += f", program {e.fingerprint[:12]}"
    if e.cache_hit is not None:
        out += ", cache hit" if e.cache_hit else ", cache miss"
    return out


def divergence_line(d: Divergence) -> str:
    """One divergence in one line: where, who, what each group compiled, what differs, what it means."""
    groups = "; ".join(f"{processes(g.processes)}: {compile_text(g.event)}" for g in d.groups)
    verb = "differs" if len(d.processes) == 1 else "differ"
    return (f"{d.kind} divergence at compile #{d.position + 1}: {processes(d.processes)} {verb} "
            f"({', '.join(d.differs) or 'order'}). {groups}. {WHAT.get(d.kind, '').capitalize()}")


def agreement_line(sequences: Mapping[int, Sequence[CompileEvent]]) -> str:
    """What the processes have in common when nothing diverged."""
    n = max((len(s) for s in sequences.values()), default=0)
    ps = sorted(sequences)
    return (f"{len(ps)} processes compiled the same {n} program{'s' if n != 1 else ''} in the same order, "
            "from the same lines")


def hang_line(me: int, event: CompileEvent, lacking: Sequence[int], seconds: float,
              sequences: Mapping[int, Sequence[CompileEvent]]) -> str:
    """The live warning: this process compiled a program its peers have not, ``seconds`` ago."""
    last = []
    for p in lacking:
        seq = sequences.get(p) or []
        last.append(f"process {p}: {compile_text(seq[-1]) if seq else 'no compile yet'}")
    return (f"jitscope: process {me} compiled {compile_text(event)} {seconds:.0f} s ago; "
            f"{processes(list(lacking))} {'has' if len(lacking) == 1 else 'have'} not compiled it "
            f"(last compile: {'; '.join(last)}). If it runs a collective, process {me} waits there for "
            f"{'it' if len(lacking) == 1 else 'them'}: the processes may have diverged")
