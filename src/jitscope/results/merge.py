"""The result of ``jitscope merge``: the per-process watch files of one ``jax.distributed`` job, merged."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analyze.divergence import Divergence as Divergence
from ..analyze.divergence import ProcessGroup as ProcessGroup
from ..analyze.divergence import ProcessRun as ProcessRun
from ..model import CompileEvent, Environment
from ._base import Result


@dataclass
class MergeResult(Result):
    """Every process's compile sequence and where the sequences diverge (first divergence of each kind)."""

    kind = "merge"
    env: Environment = field(default_factory=Environment)
    run_dir: str = ""  # what was given (a directory or files)
    processes: list[ProcessRun] = field(default_factory=list)  # by process index
    events: list[CompileEvent] = field(default_factory=list)  # every process's, each with its process_index
    divergences: list[Divergence] = field(default_factory=list)  # by position; empty: the processes agree
    skipped: list[str] = field(default_factory=list)  # files read but not merged, one line each (why)

    def sequence(self, process_index: int) -> list[CompileEvent]:
        """One process's compiles, in its order."""
        return [e for e in self.events if e.process_index == process_index]

    @property
    def program_divergence(self) -> Divergence | None:
        """The first position where the processes compiled different programs (the hang case), if any."""
        return next((d for d in self.divergences if d.kind == "program"), None)
