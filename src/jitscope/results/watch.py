"""The result of ``jitscope watch``: every compile of a run, per-function totals, ranked fixes."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._serde import Record
from ..model import CompileEvent, Environment, Finding, Fix, Location
from ._base import Result


def recompiles(events: list[CompileEvent]) -> list[CompileEvent]:
    """The compiles in ``events`` that were not a function's first (the ones a budget may forbid)."""
    return [e for e in events if e.reason is not None and e.reason.category != "first_compile"]


@dataclass
class FunctionSummary(Record):
    """Compile totals for one jitted function (name + definition site)."""

    function: str
    definition: Location | None = None
    compiles: int = 0
    seconds: float = 0.0  # trace + lower + compile, all of this function's compiles
    share_of_wall: float | None = None  # seconds / the run's wall time
    reasons: dict[str, int] = field(default_factory=dict)  # category -> count
    call_sites: list[Location] = field(default_factory=list)  # distinct, in order of first use


@dataclass
class PersistentCacheInfo(Record):
    """JAX's persistent compilation cache during the run, and what it would save on a rerun."""

    enabled: bool = False
    directory: str | None = None
    min_compile_seconds: float | None = None  # jax_persistent_cache_min_compile_time_secs
    hits: int = 0
    misses: int = 0
    seconds_saved: float = 0.0  # JAX's own compile_time_saved_sec, summed over hits in this run
    rerun_cacheable_compiles: int = 0  # compiles slow enough to be written to the cache
    rerun_saving_seconds: float = 0.0  # their compile seconds: what a warm cache skips on a rerun


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
    internal_compiles: int = 0  # JAX's own eager-op / jnp compiles, not attributed to user functions
    internal_seconds: float = 0.0
    persistent_cache: PersistentCacheInfo = field(default_factory=PersistentCacheInfo)
    max_compiles: int | None = None
    fail_on_recompile: bool = False
    violations: list[str] = field(default_factory=list)  # budget breaches, one line each
    crash: Finding | None = None  # the program died of a jit error (tracer error, unhashable static): why, and the fix

    @property
    def compile_seconds(self) -> float:
        """Seconds spent tracing, lowering and compiling the user's functions."""
        return float(sum(e.total_seconds for e in self.events))

    @property
    def recompiles(self) -> list[CompileEvent]:
        """Every compile that was not a function's first."""
        return recompiles(self.events)
