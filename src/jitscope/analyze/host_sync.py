"""JW502: a line of the program that reads a new ``jax.Array`` value to the host over and over: a
device-to-host round trip per loop iteration.

From ``collect/host_reads.HostReadProbe``: per program line, the host reads (``float``, ``.item()``,
``bool``, ``np.asarray``, ``print``) of ``jax.Array`` values made directly by the program, how many were of a
new array (each iteration's result), how many had to wait for the computation, and their seconds. A line
with at least ``MIN_FRESH_READS`` reads of new arrays is in a loop that stops for the device at every
iteration: JAX dispatches asynchronously, and each read makes the host wait for the step just dispatched
before it can dispatch the next (on an accelerator the device then idles while Python runs).

What a sync costs (the model): JAX dispatches asynchronously, so without the sync the host would go on to the next
iteration's work (preparing a batch, dispatching the next step) while the device still runs this one. A sync per
iteration forbids that overlap and nothing else: per iteration it costs at most the lesser of the time the read
waited for the device and the host's own time since the previous sync there (with a host that does nothing else,
or a device that was done before the read, there was nothing to overlap). The probe measures both for reads that
repeat the previous read's program stack at the line (one loop ran both; a helper called from 55 separate lines
of a test is no loop; a helper line two callers reach in one loop keeps one loop per caller, and the loop's time
there, the line's time between reads from any stack, is counted once) and sums that bound (``lost``). A line is reported only when it is at least
``MIN_LOST_SECONDS`` and ``MIN_LOST_SHARE`` of the loop's time there: a diagnostic print loop over results
computed before it (no read waits) and a tiny program synced each step on a CPU (nothing to overlap) are quiet.
A sync inside a timed region that encloses it alone (the region began after the sync before it and ends before the
loop's next sync: ``t0 = clock(); y = f(x); float(y); clock() - t0``), in at least half the iterations, is the
measurement's own: timing each iteration of a benchmark needs it (JW507 reports the opposite, a clock read without
it), and it is not reported. An elapsed-time print (``clock() - start`` with ``start`` read before the loop) spans
every sync and times no step: it leaves the finding alone.

Certain that the reads happened (counted); ``warning``. The time lost is an upper bound measured here (the wait
and the host's time per iteration); what an accelerator would lose is not guessed.
"""

from __future__ import annotations

from typing import Any

from .._format import fmt_seconds
from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source

MIN_FRESH_READS = 50
# With the ``for`` index around the line known (``collect/loop_index.py``): the share of the loop's iterations
# that read. A read every other iteration or more often is a round trip per iteration; every 100 steps is not,
# however many reads a long run adds up.
MIN_ITERATION_SHARE = 0.5
# The time the syncs cost, as measured (module docstring): below either bound no user would act on it (a print loop
# after the computation, 12 ms in all). A share, not only seconds: a loaded machine slows the host and the device
# alike, so the share of the loop the syncs cost barely moves with load.
MIN_LOST_SECONDS = 0.05
MIN_LOST_SHARE = 0.10
# Iterations whose sync a timed region's closing clock read follows: at least this share makes the sync a benchmark's.
TIMED_SHARE = 0.5


def host_sync_findings(sites: list[Any]) -> list[RuntimeFinding]:
    """JW502 for each program line with at least ``MIN_FRESH_READS`` host reads of new arrays."""
    out = []
    for s in sites:
        if s.fresh < MIN_FRESH_READS:
            continue
        iterations, span = getattr(s, "iterations", None), getattr(s, "span", None)
        if iterations and span and iterations < span * MIN_ITERATION_SHARE:
            continue  # the loop around the line reads in few of its iterations (every 100 steps): not per iteration
        if not _costs(s):
            continue
        loc = s.location
        shapes = ", ".join(sorted(s.shapes or {}, key=lambda k: -(s.shapes or {})[k])[:3])
        waited = f"{s.waited:,} waited for the device, " if s.waited else ""
        waits = getattr(s, "waits", 0)
        verb = "waited for" if waits >= s.reads else "read or waited for" if waits else "read"
        out.append(RuntimeFinding(
            "JW502", loc.function or "?",
            f"line {loc.line} {verb} {s.fresh:,} new jax.Array values{'' if waits >= s.reads else ' to the host'} "
            f"({shapes}): {'a host sync' if waits >= s.reads else 'a device-to-host round trip'} per iteration ({waited}{fmt_seconds(s.seconds)} in the "
            f"reads); overlapping the host's {fmt_seconds(s.host_seconds)} of work between them with the device's "
            f"could have saved up to {fmt_seconds(s.lost)}, {s.lost / s.loop_seconds:.0%} of the loop", "warning", loc,
            Fix(fixes.HOST_SYNC.title, fixes.HOST_SYNC.why, location=loc), source=_source(loc),
            details={"reads": s.reads, "fresh_reads": s.fresh, "waited": s.waited, "seconds": s.seconds,
                     "block_until_ready": waits,
                     "shapes": dict(s.shapes or {}), "iterations": iterations, "loop_iterations": span,
                     "repeats": s.repeats, "host_seconds": s.host_seconds, "loop_seconds": s.loop_seconds,
                     "seconds_lost": s.lost, "timed": s.timed,
                     "min_seconds_lost": MIN_LOST_SECONDS, "min_share_lost": MIN_LOST_SHARE,
                     "evidence": "host reads of jax.Array values (ArrayImpl._value) counted at this line"}))
    return out


def _costs(site: Any) -> bool:
    """Whether the line's syncs cost the loop enough to act on, and are not a benchmark's (module docstring)."""
    repeats = getattr(site, "repeats", 0)
    if not repeats or site.timed >= repeats * TIMED_SHARE:
        return False  # no loop repeated the read (separate calls of a helper), or each sync closes a timed region
    return site.lost >= MIN_LOST_SECONDS and site.lost >= MIN_LOST_SHARE * site.loop_seconds


WARN_BYTES = 64 * 1024  # below this a copy per call costs microseconds: said, as info


def host_argument_findings(arguments: list[Any], sampler: Any = None) -> list[RuntimeFinding]:
    """JW505 for each (function, call site) that sends the same NumPy arrays on every iteration of a loop (around
    the call, or around a call of the function that makes it). ``sampler``: the stack samples of the run
    (``collect/dispatch_sampler``), for the share of the run spent in the call's line."""
    from .._format import fmt_bytes

    groups: dict[tuple[str, str, int], list[Any]] = {}
    for a in arguments:
        loc = a.location
        groups.setdefault((a.function, loc.file if loc else "", loc.line if loc else 0), []).append(a)
    out = []
    for (function, _, _), items in groups.items():
        seen: dict[str, Any] = {}
        for a in items:
            seen.setdefault(a.name, a)
        total = sum(a.nbytes for a in seen.values())
        loc = items[0].location
        loop = getattr(items[0], "loop", None)
        what = ", ".join(f"{a.name} ({a.spec})" for a in list(seen.values())[:4])
        where = (f"at line {loc.line if loc else '?'} (in {loc.function if loc else '?'}, called from the loop at "
                 f"line {loop.line} of {loop.function or '<module>'})" if loop is not None
                 else f"from a loop at line {loc.line if loc else '?'}")
        share = _line_share(sampler, loc)
        spent = f"; the line held {share:.0%} of the run's stack samples, copies included" if share else ""
        details = {"arguments": [{"name": a.name, "path": a.path, "spec": a.spec, "bytes": a.nbytes}
                                 for a in seen.values()], "bytes": total, "bytes_per_call": total,
                   "confidence": "likely",
                   "evidence": "the call that compiled got these NumPy arrays, held by names or attributes (or "
                               "items of a container argument held so) that the loop never rebinds, with the same "
                               "contents at the end of the run where still alive; each cached call copies NumPy "
                               "arguments in JAX's C++ dispatch (not counted: no Python runs there)"}
        if loop is not None:
            details["loop"] = {"file": loop.file, "line": loop.line, "function": loop.function}
        if share:
            details["line_share"] = round(share, 4)
        out.append(RuntimeFinding(
            "JW505", function,
            f"{function} is called {where} with the same NumPy array{'s' if len(seen) > 1 else ''} {what} each "
            f"time: JAX copies {fmt_bytes(total)} host-to-device on every call{spent}",
            "warning" if total >= WARN_BYTES else "info", loc,
            Fix(fixes.DEVICE_PUT_ONCE.title, fixes.DEVICE_PUT_ONCE.why, location=loc), source=_source(loc),
            details=details))
    return out


def _line_share(sampler: Any, loc: Any) -> float | None:
    """The share of the run's stack samples taken while the program's thread was in the call's line."""
    if sampler is None or loc is None or not getattr(sampler, "samples", 0):
        return None
    site = getattr(sampler, "sites", {}).get((loc.file, loc.line))
    if site is None:
        return None
    n = sum(site.counts.values())
    return n / sampler.samples if n else None
