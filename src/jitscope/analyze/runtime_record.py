"""The record of a runtime finding (``RuntimeFinding``, JWxxx) and its grouping for display.

Made by ``runtime_findings.py`` (JW1xx-JW4xx at each trace), ``duplicates.py`` (JW403/JW404),
``slow_compile.py`` (JW402) and ``dispatch.py`` (JW501); kept apart from the analyzer so those
modules share it without importing each other.
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..model import Fix, Location

LARGE_CONSTANT_BYTES = 1 << 20  # a captured constant this large is a warning (JW301)
# Below this many bytes of captured array constants in one compiled program, JW301 says nothing: the bytes are
# copied into each program and its device memory, and their compile time was within this CPU's noise up to
# 64 KiB (2 ms; +5 to +7 ms at 1 MiB, +135 ms at 16 MiB: benchmarks/constant_cost.py). A small constant going stale is
# still JW302.
NOTABLE_CONSTANT_BYTES = 64 << 10
_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
_LEAK_MADE = re.compile(r"created on line (.+?):(\d+)(?::\d+)? \(")


@dataclass
class RuntimeFinding(Record):
    """One thing watch saw jit do to the running program, with a stable code (``runtime_codes.CODES``)."""

    code: str  # "JW101", ...
    function: str  # the jitted function being traced or compiled
    message: str
    severity: str = "warning"
    location: Location | None = None  # the user's line
    fix: Fix | None = None
    compile_index: int | None = None  # the CompileEvent's index; None for a trace that compiled nothing
    timestamp: float = 0.0  # seconds since the watch started, at the trace's start
    seconds: float = 0.0  # trace + lower + compile seconds of the event it was seen in (JW5xx: seconds lost)
    source: str = ""  # the source line at ``location``
    details: dict[str, Any] = field(default_factory=dict)
    # What was measured or observed that makes the finding true (``runtime_codes.RuntimeCode.evidence``
    # states the rule per code), and how sure it is: "certain" (observed: JAX raised, the effect ran, the
    # array is in the program), "likely" (inferred from measurements: shares, rates, normalised texts).
    evidence: str = ""
    confidence: str | None = None


@dataclass
class FindingGroup:
    """Findings of one (function, code): how many, the seconds of the compiles they came from."""

    function: str
    code: str
    severity: str
    count: int
    seconds: float
    findings: list[RuntimeFinding]

    @property
    def first(self) -> RuntimeFinding:
        return self.findings[0]

    @property
    def locations(self) -> list[Location]:
        """Distinct user lines, in order of first appearance."""
        seen: dict[tuple[str, int], Location] = {}
        for f in self.findings:
            if f.location is not None:
                seen.setdefault((f.location.file, f.location.line), f.location)
        return list(seen.values())


def group_findings(findings: list[RuntimeFinding]) -> list[FindingGroup]:
    """Grouped by (function, code), worst first: errors, then most seconds, then most findings."""
    groups: dict[tuple[str, str], FindingGroup] = {}
    for f in findings:
        g = groups.get((f.function, f.code))
        if g is None:
            g = groups[(f.function, f.code)] = FindingGroup(f.function, f.code, f.severity, 0, 0.0, [])
        g.count += 1
        g.findings.append(f)
        if _SEVERITY_RANK.get(f.severity, 3) < _SEVERITY_RANK.get(g.severity, 3):
            g.severity = f.severity
    for g in groups.values():  # one compile can carry several findings of a code: count its seconds once
        g.seconds = sum({(f.compile_index, f.timestamp): f.seconds for f in g.findings}.values())
    return sorted(groups.values(), key=lambda g: (_SEVERITY_RANK.get(g.severity, 3), -g.seconds, -g.count,
                                                 g.function, g.code))


def source_line(loc: Location | None) -> str:
    """The stripped source line at ``loc`` ("" when unknown)."""
    return linecache.getline(loc.file, loc.line).strip() if loc else ""




def leak_created(message: str) -> dict | None:
    """Where JAX says a leaked tracer was made ("The leaked intermediate value was created on line f.py:9:21"),
    as a Location dict, or None (JW101/JW102 ``details.created_at``; the trace evidence's leak events)."""
    m = _LEAK_MADE.search(message)
    return Location(m.group(1), int(m.group(2))).to_dict() if m else None
