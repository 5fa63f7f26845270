"""JAX's own warnings, at the program's line, as runtime findings: JW603 (a 64-bit dtype silently
truncated to 32 bits) and JW604 (a donated buffer no output can reuse).

The records come from ``collect/jax_signals.JaxWarningProbe``: warnings JAX issued (its code called
``warnings.warn``) that Python's filters showed, with the innermost program frame on the stack. JAX says
what happened; the finding adds the program's line and the fix from ``jaxmodel/fixes.py``:

* ``Explicitly requested dtype float64 ... is not available, and will be truncated to dtype float32``
  (``jnp.ones(..., dtype=jnp.float64)``, ``jax.random.uniform(..., dtype=float64)``, ``.astype``): JW603.
* ``Some donated buffers were not usable: f32[3]``: JW604 (issued while the donating function is lowered,
  so the line is the call that compiled it).

Both are ``warning``: JAX issued them (certain), and the program runs on, with other numbers or without the
memory saving it asked for. Other JAX warnings are left to JAX's own text.
"""

from __future__ import annotations

import re
from typing import Any

from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source

_X64 = re.compile(r"Explicitly requested dtype (\S+)(?: requested in (\S+))? is not available, and will be "
                  r"truncated to dtype (\w+)")
_DONATION = re.compile(r"Some donated buffers were not usable: (.*?)\.?(?:\n|$)")


def warning_findings(records: list[Any], t0: float) -> list[RuntimeFinding]:
    """JW603/JW604 for JAX's dtype-truncation and unusable-donation warnings."""
    out = []
    for w in records:
        loc = w.location
        base = {"location": loc, "source": _source(loc), "timestamp": max(0.0, w.time - t0)}
        fn = getattr(w, "function", "") or (loc.function if loc is not None and loc.function else "?")
        times = "" if w.count == 1 else f" ({w.count} times)"
        m = _X64.search(w.message)
        if m:
            asked, api, got = m.group(1), m.group(2), m.group(3)
            via = f" in {api}" if api else ""
            out.append(RuntimeFinding(
                "JW603", fn,
                f"{asked} requested{via} became {got}: jax_enable_x64 is off, so JAX computes in 32 bits{times}",
                "warning", fix=Fix(fixes.ENABLE_X64.title, fixes.ENABLE_X64.why, location=loc),
                details={"requested": asked, "api": api or "", "got": got, "count": w.count,
                         "evidence": f"JAX's {w.category}: {w.message.splitlines()[0][:160]}"}, **base))
            continue
        m = _DONATION.search(w.message)
        if m:
            out.append(RuntimeFinding(
                "JW604", fn,
                f"donated buffers no output can reuse ({m.group(1)}): the donation saves nothing and the "
                f"arrays are deleted anyway{times}", "warning",
                fix=Fix(fixes.UNUSABLE_DONATION.title, fixes.UNUSABLE_DONATION.why, location=loc),
                details={"buffers": m.group(1), "count": w.count,
                         "evidence": f"JAX's {w.category} while lowering the donating function"}, **base))
    return out
