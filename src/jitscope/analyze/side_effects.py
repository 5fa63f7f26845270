"""Turn trace-time side effects (``collect.trace_effects``) into findings.

Each distinct (kind, line, detail) becomes one ``trace-side-effect`` finding that says what
ran, how many times during one trace, and what to use instead. Captured values from
``analyze.jaxpr_stats.captured_values`` become ``stale-global`` / ``captured-closure``
findings: the value jit baked in at trace time and where the function reads it.
"""

from __future__ import annotations

from collections import Counter

from ..jaxmodel import fixes
from ..model import Finding, Fix, Location
from .jaxpr_stats import CapturedValue


def side_effect_findings(events: list) -> list[Finding]:
    """One finding per distinct side effect seen during one instrumented trace."""
    counts = Counter((e.kind, e.file, e.line, e.function, e.detail) for e in events)
    findings = []
    for (kind, file, line, function, detail), n in counts.items():
        loc = Location(file, line, function=function or None) if file and line else None
        advice = fixes.effect(kind)
        what = {"print": "print()", "logging": detail, "container": f"mutation of {detail}",
                "global": f"assignment to global '{detail}'"}[kind]
        where = f" at {file}:{line}" if loc else ""
        message = f"{what}{where} runs only while tracing ({n} time{'s' if n != 1 else ''} per trace, 0 per call)"
        findings.append(Finding("trace-side-effect", message, "warning", loc, name=kind,
                                fix=Fix(advice.title, advice.why, "advice", location=loc),
                                details={"kind": kind, "detail": detail, "count_per_trace": n}))
    return findings


def captured_findings(captured: list[CapturedValue]) -> list[Finding]:
    """``stale-global`` for module globals baked in at trace time, ``captured-closure`` for closures."""
    findings = []
    for c in captured:
        if not c.in_jaxpr and c.kind == "array":
            continue  # read but not part of the program (e.g. only its shape was used)
        code = "stale-global" if c.source == "global" else "captured-closure"
        where = f" (read at line {c.location.line})" if c.location else ""
        size = f", {c.bytes} bytes" if c.bytes else ""
        baked = "as a constant" if c.in_jaxpr else "as a Python value"
        message = (f"{c.source} '{c.name}' ({c.type} {c.value}{size}) is baked into the compiled function "
                   f"{baked}{where}; changing it later has no effect until jit retraces")
        advice = fixes.pass_as_argument(c.name, stale=True)
        fix = Fix(advice.title, advice.why, "advice", location=c.location)
        severity = "warning" if c.source == "global" and c.in_jaxpr else "info"
        findings.append(Finding(code, message, severity, c.location, name=c.name, fix=fix,
                                details={"kind": c.kind, "type": c.type, "value": c.value, "bytes": c.bytes,
                                         "in_jaxpr": c.in_jaxpr}))
    return findings
