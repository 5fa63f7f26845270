"""Is this compile slow for its size, and why? The model behind JW402 (slow compile).

What is measured: the process CPU seconds of the backend compile (``CompileEvent.compile_cpu_seconds``).
XLA compiles on worker threads, so the calling thread's CPU time misses it; other processes' load
inflates the wall time (a loaded machine doubled it in our runs) but hardly the CPU time, so the same
program gives the same verdict idle and loaded. Wall time alone never makes a finding.

What a program of its size is expected to take (``benchmarks/compile_cost.py`` prints the numbers
on a machine): on XLA's CPU backend the CPU time per equation of the traced program (loop bodies
counted once per use, not per trip) ranges over two orders of magnitude with the kind of code: 0.15 to
0.7 ms for elementwise chains, gathers, plain matmuls or an MLP's gradient, 5 to 45 ms for a small
matmul followed by an activation (each its own fused kernel through LLVM). So equations predict a
band, not a number. The band's top,
``UPPER_SECONDS_PER_EQUATION``, was measured on the reference machine (2 cores, JAX 0.10.2); a run
calibrates it to its own machine by the speed of its own cheapest compiles (``speed``: the 25th
percentile of the run's CPU seconds per equation against the reference's, never below 1).

A compile is reported (``slow_compile``) only when all of these hold:

* it is big enough to matter: at least ``MIN_EQUATIONS`` equations and ``threshold`` CPU seconds
  (``--slow-compile``, 1 s by default);
* its cost has a cause shown by evidence, one of
  - ``unrolled``: unrolled Python loops or comprehensions of the user's code (JW401's runs) hold at
    least ``CAUSE_SHARE`` of the equations: rolling them (``lax.fori_loop``/``scan``) cuts the
    program, and its compile time with it, by about that share;
  - ``constants``: the program's constants are large enough that copying and folding them accounts
    for at least ``CAUSE_SHARE`` of the CPU time at the reference rate ``CONSTANT_SECONDS_PER_MB``;
  - ``slow_for_size``: the CPU seconds per equation are over ``SLOW_FACTOR`` times the band's top
    (calibrated): XLA spent far longer than programs of this size take here. The cause is then named
    only from XLA's pass times (``watch --dump``), else not at all.

A program that is merely big (its CPU time inside the band, no unrolled code, no large constants)
gets no finding: nothing in it says what to change.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

MIN_EQUATIONS = 200
CAUSE_SHARE = 0.5
SLOW_FACTOR = 3.0
# Reference machine (benchmarks/compile_cost.py, 2 cores, JAX 0.10.2 CPU): CPU seconds per equation.
UPPER_SECONDS_PER_EQUATION = 0.050  # matmul + tanh chains (44 ms): the top of normal programs' band
REFERENCE_LOW_SECONDS_PER_EQUATION = 0.0003  # the 25th percentile of the benchmark's mixed programs
CONSTANT_SECONDS_PER_MB = 0.005  # copying a program's constants (2-3 ms/MB), folding ops over them (6)
CALIBRATION_MIN_EQUATIONS = 50  # smaller programs are dominated by the per-compile overhead
CALIBRATION_MIN_SAMPLES = 5


@dataclass
class ProgramSize:
    """What the compile cost model reads of one traced program."""

    equations: int  # every equation, nested bodies counted once per use
    constant_bytes: int = 0  # the program's constants (captured arrays)
    unrolled_equations: int = 0  # equations in unrolled runs of the user's code (JW401)
    unrolled_lines: list[int] = field(default_factory=list)


@dataclass
class SlowCompile:
    """A compile slow for its size, with its cause and the evidence for it."""

    cause: str  # "unrolled" | "constants" | "slow_for_size"
    cpu_seconds: float
    equations: int
    evidence: str  # what was measured, in words
    confidence: str  # "likely": the cause is inferred from shares and rates, not timed pass by pass
    seconds_per_equation: float
    upper_seconds_per_equation: float  # the calibrated band's top
    speed: float  # this run's machine against the reference (>= 1: slower)
    share: float = 0.0  # the cause's share: of the equations (unrolled), of the CPU time (constants)


class CompileCostModel:
    """The run's compiles so far (their size and CPU time) and the verdict for each new one."""

    def __init__(self) -> None:
        self._rates: list[float] = []  # CPU seconds per equation of the run's compiles big enough to tell

    def observe(self, equations: int, cpu_seconds: float) -> None:
        """Add one compile of the run to the calibration."""
        if equations >= CALIBRATION_MIN_EQUATIONS and cpu_seconds > 0:
            self._rates.append(cpu_seconds / equations)

    @property
    def speed(self) -> float:
        """How much slower this machine compiles than the reference (1 when unknown or faster)."""
        if len(self._rates) < CALIBRATION_MIN_SAMPLES:
            return 1.0
        low = statistics.quantiles(self._rates, n=4)[0]
        return max(1.0, low / REFERENCE_LOW_SECONDS_PER_EQUATION)

    def verdict(self, size: ProgramSize, cpu_seconds: float | None, threshold: float) -> SlowCompile | None:
        """A ``SlowCompile`` when this compile is big enough and slow for its size with a cause shown; else None."""
        if cpu_seconds is None or size.equations < MIN_EQUATIONS or cpu_seconds < threshold:
            return None
        speed = self.speed
        upper = UPPER_SECONDS_PER_EQUATION * speed
        rate = cpu_seconds / size.equations
        measured = (f"backend compile {cpu_seconds:.2f} s of process CPU time for {size.equations:,} equations "
                    f"({rate * 1e3:.1f} ms per equation; programs take up to {upper * 1e3:.0f} ms per equation "
                    f"on this machine)")
        base = {"cpu_seconds": cpu_seconds, "equations": size.equations, "confidence": "likely",
                "seconds_per_equation": rate, "upper_seconds_per_equation": upper, "speed": speed}
        unrolled_share = size.unrolled_equations / size.equations
        if unrolled_share >= CAUSE_SHARE:
            lines = ", ".join(str(n) for n in size.unrolled_lines[:3])
            return SlowCompile("unrolled", evidence=f"{measured}; {size.unrolled_equations:,} of the equations "
                               f"({unrolled_share:.0%}) are unrolled Python loops at line {lines}",
                               share=unrolled_share, **base)
        constants_seconds = size.constant_bytes / 1e6 * CONSTANT_SECONDS_PER_MB * speed
        if constants_seconds >= CAUSE_SHARE * cpu_seconds:
            share = min(1.0, constants_seconds / cpu_seconds)
            return SlowCompile("constants", evidence=f"{measured}; {size.constant_bytes / 1e6:.0f} MB of constants, "
                               f"about {constants_seconds:.1f} s to fold and copy at "
                               f"{CONSTANT_SECONDS_PER_MB * 1e3:.0f} ms per MB", share=share, **base)
        if rate >= SLOW_FACTOR * upper:
            return SlowCompile("slow_for_size", evidence=f"{measured}: {rate / upper:.0f}x the top of that band",
                               **base)
        return None


PASS_SHARE = 0.3  # one XLA pass taking this share of a compile is named as its cause


def pass_cause(passes: dict) -> tuple[str, float] | None:
    """The XLA pass that took at least ``PASS_SHARE`` of a compile (``CompilePasses`` as a dict, from
    ``watch --dump``'s ``passes.json``): (name, share), or None when no pass stands out."""
    ranked = sorted(passes.get("passes") or [], key=lambda p: -(p.get("share") or 0.0))
    if not ranked or (ranked[0].get("share") or 0.0) < PASS_SHARE:
        return None
    return str(ranked[0]["name"]), float(ranked[0]["share"])
