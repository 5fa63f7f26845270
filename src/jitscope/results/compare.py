"""The result of ``jitscope compare``: each variant's first call, phases and steady state, compared."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analyze.compare import BreakEven, Recommendation
from ..analyze.numerics import NumericDiff
from ..analyze.pessimisation import Pessimisation
from ..collect.variants import VariantResult as VariantResult
from ..model import ArgSignature, Environment
from ._base import Result


@dataclass
class CompareResult(Result):
    """Measured jit strategies for one call signature.

    ``variants`` in the order given; ``reference`` names the variant outputs and speedups are
    compared against; ``numerics`` holds one NumericDiff per compared variant; ``break_even``
    one row per pair of successful variants; ``recommendation`` is for ``calls`` calls (None:
    steady state). ``errors`` lists one line per failed variant or output mismatch.
    ``pessimisation`` holds, for each jitted variant slower per call than an un-jitted one (eager,
    or Python calling a smaller jit), whether its compiled program duplicates work.
    """

    kind = "compare"

    variants: list[VariantResult] = field(default_factory=list)
    reference: str | None = None
    calls: int | None = None
    signature: ArgSignature | None = None
    numerics: list[NumericDiff] = field(default_factory=list)
    break_even: list[BreakEven] = field(default_factory=list)
    recommendation: Recommendation | None = None
    errors: list[str] = field(default_factory=list)
    budget_s: float = 0.5
    min_samples: int = 5
    title: str = ""
    pessimisation: dict[str, Pessimisation] = field(default_factory=dict)  # by losing jitted variant
    interrupted: bool = False  # Ctrl-C stopped the measurement; unmeasured variants have error "interrupted"
    env: Environment = field(default_factory=Environment)

    def variant(self, name: str) -> VariantResult:
        """The variant called ``name`` (KeyError if none)."""
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def ok(self) -> bool:
        """No variant failed and no output mismatched the reference in shape, dtype or structure."""
        return not self.errors
