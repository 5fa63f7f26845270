"""The result of ``jitscope inspect``: the anatomy of one jitted function."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analyze.bloat import BloatRun
from ..analyze.collectives import Collectives
from ..analyze.compile_passes import CompilePasses
from ..analyze.hlo import HloStats
from ..analyze.jaxpr_stats import JaxprStats
from ..analyze.line_cost import LineCost, LineCostTotals
from ..analyze.numerics import NumericDiff
from ..analyze.pessimisation import Pessimisation
from ..collect.shardings import ShardLayout
from ..model import ArgSignature, Environment, Finding, Timing
from ._base import Result


@dataclass
class InspectResult(Result):
    """Everything ``inspect`` measured about one function on one set of arguments.

    ``status`` is ``"ok"``, ``"interrupted"`` (Ctrl-C: what was measured before it is kept) or
    ``"trace_error"`` (tracing failed; ``findings`` explains it and
    the remaining fields are empty). ``timings`` has ``trace``, ``lower``, ``compile``,
    ``first_run``, ``steady_run`` and ``eager_run`` where they ran.
    """

    kind = "inspect"

    target: str = ""
    signature: ArgSignature | None = None
    status: str = "ok"
    timings: dict[str, Timing] = field(default_factory=dict)
    jaxpr: JaxprStats | None = None
    bloat: list[BloatRun] = field(default_factory=list)
    hlo: HloStats | None = None
    pessimisation: Pessimisation | None = None  # the optimised program's work against the program's
    numerics: NumericDiff | None = None
    passes: CompilePasses | None = None  # with passes=True (--passes): the compile, pass by pass
    findings: list[Finding] = field(default_factory=list)
    stage_errors: dict[str, str] = field(default_factory=dict)
    trace_output: str = ""  # what the function printed while it was traced
    dump_files: list[str] = field(default_factory=list)
    line_costs: list[LineCost] = field(default_factory=list)  # costliest source lines first
    line_cost_totals: LineCostTotals | None = None
    shard_layout: ShardLayout | None = None  # a program over several devices: inputs/outputs per device
    collectives: Collectives | None = None  # a program over several devices: its collectives
    env: Environment = field(default_factory=Environment)

    def findings_by_code(self, code: str) -> list[Finding]:
        """The findings with ``code`` (e.g. ``"bloat"``)."""
        return [f for f in self.findings if f.code == code]
