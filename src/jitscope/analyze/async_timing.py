"""JW507: a clock read that ended a timed region while a result computed in the region was still running.

Input: the probe's per-line records (``collect/clock_reads.ClockSite``). A line is reported when at least
one of its reads was late (a ``jax.Array`` the frame got since its previous clock read was not ready yet):
the time the program measured there is JAX's asynchronous dispatch, not the computation. Reads whose new
arrays were all ready (the program blocked, or the work was done) are counted beside, so the message says
how many of the line's regions were cut short.

"likely": the late result and the read are observed; that the two clock values are subtracted into a
timing (and not, say, a log timestamp) is inferred from two reads in one frame around new results.
"""

from __future__ import annotations

from typing import Any

from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source


def async_timing_findings(sites: list[Any]) -> list[RuntimeFinding]:
    """One JW507 per line of the program with late clock reads."""
    out = []
    for s in sites:
        if s.late < 1:
            continue
        names = ", ".join(f"'{n}'" for n in sorted(s.names, key=lambda n: -s.names[n])[:3])
        loc = s.location
        fn = loc.function or "<module>"
        out.append(RuntimeFinding(
            "JW507", fn,
            f"the clock read at line {loc.line}{_through(s)} ended {s.late:,} of {s.reads:,} timed regions while {names} (computed "
            "in the region) was still running: the time measured is JAX's asynchronous dispatch, not the "
            "computation", "warning", loc, Fix(fixes.ASYNC_TIMING.title, fixes.ASYNC_TIMING.why, location=loc),
            compile_index=None, source=_source(loc),
            details={"late_reads": s.late, "reads": s.reads, "arrays": dict(s.names),
                     **({"helper": f"{s.helper.function} line {s.helper.line}"}
                        if getattr(s, "helper", None) is not None else {}),
                     "evidence": f"at {s.late:,} clock reads of this line, a jax.Array made since the region's "
                                 "opening clock read (held by the frame, or, where its locals cannot be read, alive "
                                 "in the process) reported is_ready() False"},
            evidence="a result made inside the timed region was not ready when its closing clock read ran",
            confidence="likely"))
    return out


def _through(site: Any) -> str:
    """`` (in Timer.__exit__, line 42)`` when the closing read was a timing helper's, called from the line."""
    h = getattr(site, "helper", None)
    return f" (in {h.function or '?'}, line {h.line})" if h is not None else ""
