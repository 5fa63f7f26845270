"""The result of ``jitscope compare``: each variant's first call, phases and steady state, compared."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._serde import Record
from ..analyze.compare import BreakEven, Recommendation
from ..analyze.numerics import NumericDiff
from ..model import ArgSignature, Environment, Timing
from ._base import Result


@dataclass
class VariantResult(Record):
    """One variant as measured.

    ``first_call`` is one call from a cold cache (trace + lower + compile + run for jitted code;
    eager code compiles each primitive on first use). ``steady`` is the per-call time once warm.
    ``phases`` holds the ahead-of-time ``trace``/``lower``/``compile`` seconds of a jitted variant.
    ``compiles_first_call`` / ``compile_seconds_first_call`` count the XLA backend compiles seen
    (via ``jax.monitoring``) during the first call; ``compiles_per_call`` is the average number of
    backend compiles per steady-state call (0 when jit's cache works, > 0 when every call
    recompiles). ``error`` is set when the variant could not be built or raised; ``error_stage``
    says where (``resolve``, ``first_call``, ``steady``, ``output``).
    """

    name: str
    jitted: bool = False
    description: str = ""
    first_call: Timing | None = None
    steady: Timing | None = None
    phases: dict[str, float] = field(default_factory=dict)
    compiles_first_call: int | None = None
    compile_seconds_first_call: float | None = None
    compiles_per_call: float | None = None
    speedup: float | None = None  # reference steady median / this steady median
    output: str = ""  # short description of the output pytree, e.g. "f32[1000]"
    error: str | None = None
    error_stage: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Measured successfully (it may still have an output that differs from the reference)."""
        return self.error is None and self.first_call is not None and self.steady is not None


@dataclass
class CompareResult(Result):
    """Measured jit strategies for one call signature.

    ``variants`` in the order given; ``reference`` names the variant outputs and speedups are
    compared against; ``numerics`` holds one NumericDiff per compared variant; ``break_even``
    one row per pair of successful variants; ``recommendation`` is for ``calls`` calls (None:
    steady state). ``errors`` lists one line per failed variant or output mismatch.
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
