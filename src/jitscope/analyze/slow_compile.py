"""JW402 (slow compile) as a finding: the verdict of ``compile_cost.py`` with its cause, fix and evidence.

The cause's place and fix come from the same trace's other findings: the unrolled run's line and fix
(JW401), the largest captured constants' names and fix (JW301); with ``watch --dump``, the XLA pass
that took most of a compile whose cause was not known (``name_slow_passes``).
"""

from __future__ import annotations

from typing import Any

from ..model import CompileEvent
from .runtime_record import LARGE_CONSTANT_BYTES, RuntimeFinding
from .runtime_record import source_line as _source


def constant_bytes(jaxpr: Any) -> int:
    """Bytes of a traced program's constants (captured arrays)."""
    total = 0
    for c in getattr(jaxpr, "consts", ()):
        try:
            total += int(getattr(c, "nbytes", 0))
        except Exception:  # noqa: BLE001 - an exotic constant: not counted
            continue
    return total


_CAUSES = {"unrolled": "unrolled code", "constants": "large constants",
           "slow_for_size": "not known: XLA took far longer than programs of this size take on this machine "
                            "(`watch --dump` times its passes)"}


def slow_compile_finding(event: CompileEvent, verdict: Any, bloat: list[RuntimeFinding], captured: list[RuntimeFinding],
          threshold: float, base: dict) -> RuntimeFinding:
    loc, fix, cause = event.definition, None, _CAUSES[verdict.cause]
    if verdict.cause == "unrolled":
        b = max(bloat, key=lambda f: f.details["equations"])
        cause, loc, fix = f"unrolled code, {b.message}", b.location or loc, b.fix
    elif verdict.cause == "constants":
        big = sorted((c for c in captured if c.details.get("bytes", 0) >= LARGE_CONSTANT_BYTES),
                     key=lambda c: -c.details["bytes"])
        if big:
            names = ", ".join(f"'{c.details['name']}'" for c in big[:3])
            cause, loc, fix = f"{cause} ({names})", big[0].location or loc, big[0].fix
    wall = f"; {event.total_seconds:.2f} s wall for trace, lower and compile" if event.total_seconds else ""
    details: dict[str, Any] = {"cause": verdict.cause, "threshold_s": threshold, "phases": dict(event.phases),
                               "cpu_seconds": verdict.cpu_seconds, "equations": verdict.equations,
                               "seconds_per_equation": verdict.seconds_per_equation,
                               "upper_seconds_per_equation": verdict.upper_seconds_per_equation,
                               "machine_speed": verdict.speed, "share": verdict.share}
    return RuntimeFinding(
        "JW402", event.function,
        f"compile #{event.index} of {event.function}: the backend compile took {verdict.cpu_seconds:.2f} s of CPU "
        f"({verdict.equations:,} equations{wall}); cause: {cause}", "warning", loc, fix,
        source=_source(loc), details=details, evidence=verdict.evidence, confidence=verdict.confidence, **base)


def name_slow_passes(findings: list[RuntimeFinding], passes_of: Any) -> None:
    """Name the XLA pass behind each JW402 whose cause was not known, where ``watch --dump`` timed the passes
    (``passes_of(compile_index)``: that compile's ``CompilePasses`` dict, or None)."""
    from .compile_cost import pass_cause

    for f in findings:
        if f.code != "JW402" or f.details.get("cause") != "slow_for_size" or f.compile_index is None:
            continue
        found = pass_cause(passes_of(f.compile_index) or {})
        if found is None:
            continue
        name, share = found
        f.message = f.message.replace(_CAUSES["slow_for_size"], f"XLA's {name} pass took {share:.0%} of it")
        f.evidence += f"; XLA's pass times (--dump): {name} {share:.0%} of the compile"
        f.details["pass"], f.details["pass_share"] = name, share
