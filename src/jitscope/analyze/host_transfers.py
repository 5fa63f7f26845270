"""JW508: a line of the program that converts the same host data to a device array over and over
(``jnp.asarray(X)``, ``jnp.array(X)``, ``jax.device_put(X)`` of a NumPy array in a loop): a host-to-device
copy per step of data that could stay on the device.

From ``collect/host_transfers.HostTransferProbe``: per program line, the eager conversions of NumPy data
(1 KiB or more), their bytes and seconds, when the first and last began, and whether each of the line's
first calls converted the same contents as the call before. Reported when all of:

* the line made at least ``MIN_CALLS`` conversions, and every checked call converted the same data as the
  previous one (same shapes, dtypes and contents: a constant table, the whole dataset, a parameter array
  read back from NumPy). New contents each call (a new batch, a buffer refilled in place) are the input
  pipeline's data and must travel: not this finding;
* the copies are material *on this run*: in the steady state (after the line's second call: the first may
  compile JAX's eager conversion, the loop's first iteration compiles the step) the line's conversions took
  at least ``MIN_SHARE`` of the time they span (the loop's steps as measured here, so a copy that a heavy
  step hides is not reported, and machine load scales both sides alike). Bytes alone do not decide: on CPU
  a large aligned array may be aliased rather than copied, while each eager conversion also pays a
  dispatch (hundreds of microseconds for a small array), which converting once saves as well. NumPy arrays
  under 1 KiB and Python scalars are not looked at.

Certain that the conversions happened and that the data was the same on the checked calls (the contents
are compared); ``likely`` that the later calls were the same too (only the first ``CHECK_CALLS`` are
compared: the cost of comparing stays bounded).
"""

from __future__ import annotations

from typing import Any

from .._format import fmt_bytes, fmt_seconds
from ..jaxmodel import fixes
from ..model import Fix
from .runtime_record import RuntimeFinding
from .runtime_record import source_line as _source

MIN_CALLS = 20
MIN_SHARE = 0.10  # of the loop's steady-state time: the line's conversions together


def host_transfer_findings(sites: list[Any]) -> list[RuntimeFinding]:
    """One JW508 per program line whose conversions of the same host data (each at least ``MIN_CALLS`` times)
    took at least ``MIN_SHARE`` of the time they span."""
    lines: dict[tuple[str, int], list[Any]] = {}
    for s in sites:
        if s.calls >= MIN_CALLS and s.checked and s.same == s.checked:
            lines.setdefault((s.location.file, s.location.line), []).append(s)
    out = []
    for group in lines.values():
        seconds = sum(s.seconds for s in group)
        span = max(s.last_end - s.first_end for s in group)  # the steady-state calls and the steps between them
        share = seconds / span if span > 0 else 0.0
        if share < MIN_SHARE:
            continue
        loc, calls = group[0].location, max(s.calls for s in group)
        per_call = sum(s.nbytes / s.calls for s in group)
        specs = [spec for s in group for spec in s.specs]
        apis = sorted({s.api for s in group})
        checked = min(s.checked for s in group)
        out.append(RuntimeFinding(
            "JW508", loc.function or "?",
            f"line {loc.line} converts the same host data ({', '.join(specs[:4])}, {fmt_bytes(per_call)}) with "
            f"{' and '.join(apis)} on each of its {calls:,} runs: a host-to-device copy every time, "
            f"{fmt_seconds(seconds)} in the copies from the third run on ({share:.0%} of that time)", "warning", loc,
            Fix(fixes.CONVERT_ONCE.title, fixes.CONVERT_ONCE.why, location=loc), seconds=seconds,
            source=_source(loc),
            details={"apis": apis, "calls": calls, "bytes_per_call": int(per_call), "seconds": seconds,
                     "share": share, "arrays": specs, "checked_calls": checked},
            evidence=f"{' and '.join(apis)} of NumPy data timed at this line; the contents of the first "
                     f"{checked + 1} runs compared (all the same)",
            confidence="likely" if calls > checked + 1 else "certain"))
    return out
