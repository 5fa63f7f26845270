"""The result of ``jitscope diff``: two watch runs compared function by function."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analyze.cache_diff import CacheMissCause as CacheMissCause
from ..analyze.program_diff import ProgramChange as ProgramChange
from ..analyze.run_diff import FunctionDelta as FunctionDelta
from ..analyze.runtime_findings import RuntimeFinding as RuntimeFinding
from ..model import Environment
from ._base import Result


@dataclass
class DiffResult(Result):
    """Run B against run A: compiles and compile seconds per function, new and vanished recompile causes."""

    kind = "diff"
    env: Environment = field(default_factory=Environment)
    run_a: str = ""  # the files compared, as given
    run_b: str = ""
    program_a: str = ""
    program_b: str = ""
    compiles_a: int = 0
    compiles_b: int = 0
    seconds_a: float = 0.0
    seconds_b: float = 0.0
    time_change: str = "within_noise"  # the whole run's compile seconds: "slower", "faster", "within_noise"
    functions: list[FunctionDelta] = field(default_factory=list)  # largest regression first
    time_threshold: float = 0.25  # relative change a time difference must pass (fraction)
    min_seconds: float = 0.05  # and the absolute one
    fail_on: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)  # breached --fail-on conditions, one line each
    # how functions were matched where a run lacks what identifies them (module names, program fingerprints)
    notes: list[str] = field(default_factory=list)
    programs: list[ProgramChange] = field(default_factory=list)  # B's programs A never had, how they differ
    duplicates: list[RuntimeFinding] = field(default_factory=list)  # run B's duplicate compiles (JW403/JW404)
    # persistent-cache misses in B whose compile in A hit or was written, and the key component that changed
    cache_misses: list[CacheMissCause] = field(default_factory=list)

    @property
    def fewer_compiles(self) -> int:
        """Compiles B saved against A (negative: B compiled more)."""
        return self.compiles_a - self.compiles_b

    @property
    def changed(self) -> list[FunctionDelta]:
        """Functions whose compiles or compile time changed beyond noise."""
        return [d for d in self.functions if d.status != "same"]
