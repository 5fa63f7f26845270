"""The result of ``jitscope watch``: every compile of a run, per-function totals, ranked fixes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analyze.inspect_command import InspectCommand as InspectCommand
from ..analyze.runtime_findings import RuntimeFinding as RuntimeFinding
from ..analyze.watch_summary import ExpectedRecompiles as ExpectedRecompiles
from ..analyze.watch_summary import FixesTotal as FixesTotal
from ..analyze.watch_summary import FunctionSummary as FunctionSummary
from ..analyze.watch_summary import InternalRoutine as InternalRoutine
from ..analyze.watch_summary import PersistentCacheInfo as PersistentCacheInfo
from ..analyze.watch_summary import recompiles as recompiles
from ..collect.program_text import ProgramText as ProgramText
from ..collect.stall import Stall as Stall
from ..collect.warmup_run import WarmupRun as WarmupRun
from ..collect.watch_dump import DumpIndex as DumpIndex
from ..model import CompileEvent, Environment, Finding, Fix, TraceEvidence
from ._base import Result


@dataclass
class WatchResult(Result):
    """Everything ``jitscope watch`` (or ``jitscope.watch()``) recorded about one run."""

    kind = "watch"
    env: Environment = field(default_factory=Environment)
    program: str = ""  # the script, ``-m module``, or the Python block that was watched
    argv: list[str] = field(default_factory=list)
    exit_code: int | None = None
    wall_seconds: float = 0.0
    events: list[CompileEvent] = field(default_factory=list)
    functions: list[FunctionSummary] = field(default_factory=list)  # worst (most seconds) first
    fixes: list[Fix] = field(default_factory=list)  # largest saving first
    fixes_total: FixesTotal | None = None  # all fixes applied at once; overlapping savings counted once
    expected_recompiles: list[ExpectedRecompiles] = field(default_factory=list)  # a static setting a shape
    dump: DumpIndex | None = None  # ``--dump DIR``: each compile's jaxpr, StableHLO, optimised HLO files
    internal_compiles: int = 0  # JAX's own eager-op / jnp compiles, not attributed to user functions
    internal_seconds: float = 0.0
    # The routines behind them, most seconds first (at most 10): which eager operations compiled.
    internal_routines: list[InternalRoutine] = field(default_factory=list)
    persistent_cache: PersistentCacheInfo = field(default_factory=PersistentCacheInfo)
    max_compiles: int | None = None
    fail_on_recompile: bool = False
    violations: list[str] = field(default_factory=list)  # budget breaches, one line each
    crash: Finding | None = None  # the program died of a jit error (tracer error, unhashable static): why, and the fix
    findings: list[RuntimeFinding] = field(default_factory=list)  # JWxxx, by time (analyze/runtime_findings.py)
    stalls: list[Stall] = field(default_factory=list)  # ``--stall-after``: compile phases that ran past it
    inspect_command: InspectCommand | None = None  # the `jitscope inspect` line for the slowest compile
    # each distinct program of the run, normalised (collect/program_text.py): what `jitscope diff` compares
    programs: list[ProgramText] = field(default_factory=list)
    warmup: WarmupRun | None = None  # ``--warmup SCRIPT``: the script run first; ``events`` are what it missed
    # In a jax.distributed job of 2+ processes: this process's index and the job's process count
    # (outputs are named per process: run.p0.json); None in one process.
    process_index: int | None = None
    process_count: int | None = None
    started_at: float | None = None  # time.time() when watching started: event timestamps count from here
    # which of the program's functions ran while JAX traced, and how (``watch --trace-evidence``; what
    # ``jitscope lint --evidence`` reads); None when not recorded
    trace_evidence: TraceEvidence | None = None

    @property
    def compile_seconds(self) -> float:
        """Seconds spent tracing, lowering and compiling the user's functions."""
        return float(sum(e.total_seconds for e in self.events))

    @property
    def recompiles(self) -> list[CompileEvent]:
        """Every compile that was not a function's first."""
        return recompiles(self.events)
