"""The result of ``jitscope scale``: compile and run cost per problem size, and how it grows."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._serde import Record
from ..analyze.bloat import BloatRun
from ..analyze.scaling import GrowthFit
from ..model import Environment, Finding, Timing
from ._base import Result


@dataclass
class ScalePoint(Record):
    """One problem size: a cold trace / lower / compile (``repeats`` times) and the steady run."""

    n: int
    timings: dict[str, Timing] = field(default_factory=dict)  # trace, lower, compile, run
    equations: int | None = None  # jaxpr equations, nested bodies included
    top_level_equations: int | None = None
    hlo_ops: int | None = None  # optimised HLO instructions outside fusions
    bloat_repeats: int | None = None  # repeats of the largest repeated pattern (0: none found)
    error: str | None = None  # one line when this size failed

    def seconds(self, metric: str) -> float | None:
        """The minimum over repeats of a timing (the least noisy estimate of a cold cost)."""
        t = self.timings.get(metric)
        return t.min if t else None


@dataclass
class ScaleResult(Result):
    """Cost per size and fitted growth exponents for a factory ``make(n) -> (fn, args)``."""

    kind = "scale"

    target: str = ""
    sizes: list[int] = field(default_factory=list)
    repeats: int = 1  # cold compiles per size (the most any size got)
    repeats_auto: bool = False  # the run chose ``repeats`` (more while the compile growth was unsettled)
    points: list[ScalePoint] = field(default_factory=list)
    fits: dict[str, GrowthFit] = field(default_factory=dict)  # metric -> fit
    bloat: list[BloatRun] = field(default_factory=list)  # found at the largest size that traced
    findings: list[Finding] = field(default_factory=list)
    plot_files: list[str] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C stopped the measurement; the sizes measured before it are kept
    env: Environment = field(default_factory=Environment)

    def fit(self, metric: str) -> GrowthFit | None:
        """The growth fit of ``metric`` (``compile``, ``equations``, ...)."""
        return self.fits.get(metric)
