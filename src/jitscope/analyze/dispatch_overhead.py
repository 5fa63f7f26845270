"""JW504: a loop whose time goes to dispatching many small JAX calls one at a time, where one ``jax.jit``
over the loop body (the seeds' jit-scope question) would dispatch once per iteration.

From ``collect/dispatch_sampler.DispatchSampler``: stack samples of the program's thread, each filed at the
program's line with what ran inside it (a C++ call in progress, JAX's eager Python, compiling), and for each
sampled line the JAX callables it names (jitted functions, ``jnp``/``lax`` functions). A function of the
program is *dispatch-bound* when

* at least ``MIN_SHARE`` of all samples (and ``MIN_SAMPLES``) were at its lines calling JAX, outside any
  compile;
* those lines name at least ``MIN_CALLEES`` different JAX callables (many small calls: a loop that calls one
  jitted step has nothing to merge);
* every jitted function of the program among them compiled a small program (at most ``SMALL_EQUATIONS``
  equations on arrays of at most ``SMALL_ELEMENTS`` elements: otherwise the time is the work itself, not
  its dispatch), whether it compiled from a call at these lines or elsewhere (a warm-up call before the loop:
  a callee the line names is matched to the program's jitted functions by name). JAX's own ``jnp``/``lax`` routines called eagerly are small by construction.

The finding is ``warning`` with confidence *likely*: it rests on samples (the share is measured, the cause
inferred from the program sizes), and names the lines, the callables and the share of the run.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source

MIN_SHARE = 0.3
MIN_SAMPLES = 20
MIN_CALLEES = 2
SMALL_EQUATIONS = 64
SMALL_ELEMENTS = 100_000


@dataclass(frozen=True)
class ProgramFacts:
    """What one pass over a traced program tells the taxonomy's per-trace analyses."""

    equations: int  # at every depth, bodies counted once per use
    biggest: int  # the largest input or output array's element count
    callbacks: bool  # a host-callback primitive anywhere (JW503 looks further)
    random: bool  # a random_* primitive anywhere (JW602 looks further)


def program_facts(closed_jaxpr: Any) -> ProgramFacts:
    """One linear pass over a traced program and its nested bodies."""
    from .callback_loops import CALLBACKS
    from .jaxpr_stats import walk_bodies

    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    eqns, callbacks, random = 0, False, False
    for _, jx, uses in walk_bodies(jaxpr):
        eqns += len(jx.eqns) * uses
        for eqn in jx.eqns:
            name = eqn.primitive.name
            callbacks = callbacks or name in CALLBACKS
            random = random or name.startswith("random_")
    biggest = 0
    for v in (*jaxpr.invars, *jaxpr.outvars):
        shape = getattr(getattr(v, "aval", None), "shape", ()) or ()
        n = 1
        for d in shape:
            n *= int(d) if isinstance(d, int) else 1
        biggest = max(biggest, n)
    return ProgramFacts(eqns, biggest, callbacks, random)


def dispatch_findings(sampler: Any, call_sites: dict[tuple[str, int], str],
                      sizes: dict[str, tuple[int, int]]) -> list[RuntimeFinding]:
    """JW504 for each dispatch-bound function of the program.

    ``call_sites``: (file, line) -> the user's jitted function compiled from a call at that line;
    ``sizes``: jitted function name -> (equations, biggest array) of its largest compiled program
    (``program_facts``)."""
    total = sampler.samples
    if total < MIN_SAMPLES:
        return []
    sampler.read_callees()  # on this thread: the sampling thread never parses source (gh-106905)
    by_function: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for site in list(sampler.sites.values()):
        n = site.counts.get("call", 0) + site.counts.get("eager", 0)
        jitted = call_sites.get((site.location.file, site.location.line))
        if n and (site.callees or jitted or site.counts.get("eager")):
            by_function[(site.location.file, site.location.function or "?")].append((site, n, jitted))
    out = []
    for (_, function), items in by_function.items():
        samples = sum(n for _, n, _ in items)
        if samples < MIN_SAMPLES or samples / total < MIN_SHARE:
            continue
        callees: dict[str, None] = {}
        for site, _, jitted in items:
            # The names the line calls; else the function it compiled; else (JAX's Python ran inside the line:
            # x * 0.5 + 1 on arrays) the line's array operators, each one an eager dispatch.
            for name in site.callees or [jitted or f"array operators at line {site.location.line}"]:
                callees.setdefault(name, None)
        if len(callees) < MIN_CALLEES:
            continue
        big = [name for _, _, name in items if name and _large(sizes.get(name))]
        # A callee the line names that is one of the program's jitted functions, wherever it compiled (a warm-up
        # call before the loop): its program's size counts as much as one compiled at this line.
        big += [name for name in callees if _large(_size_of(sizes, name))]
        if big:
            continue  # the time may be the programs' own work
        lines = sorted({site.location.line for site, _, _ in items})
        first = min(items, key=lambda x: x[0].location.line)[0].location
        share = samples / total
        names = ", ".join(list(callees)[:6]) + (", ..." if len(callees) > 6 else "")
        span = f"lines {lines[0]}-{lines[-1]}" if len(lines) > 1 else f"line {lines[0]}"
        out.append(RuntimeFinding(
            "JW504", function,
            f"{share:.0%} of the run was spent in {function} ({span}) dispatching {len(callees)} small JAX calls "
            f"one at a time ({names}): one jax.jit over the loop body would dispatch once per iteration",
            "warning", first, Fix(fixes.JIT_THE_STEP.title, fixes.JIT_THE_STEP.why, location=first),
            source=_source(first),
            details={"share": round(share, 3), "samples": samples, "total_samples": total, "lines": lines,
                     "callees": list(callees), "confidence": "likely",
                     "evidence": "stack samples of the program's thread at lines calling JAX (outside compiles), "
                                 "and the size of the jitted programs they call"}))
    return out


def _size_of(sizes: dict[str, tuple[int, int]], callee: str) -> tuple[int, int] | None:
    """The largest program of the jitted function a line's callee name (``step``, ``model.step``) names."""
    if callee in sizes:
        return sizes[callee]
    last = callee.rsplit(".", 1)[-1]
    found = [v for k, v in sizes.items() if k.rsplit(".", 1)[-1] == last]
    return max(found) if found else None


def _large(size: tuple[int, int] | None) -> bool:
    return size is not None and (size[0] > SMALL_EQUATIONS or size[1] > SMALL_ELEMENTS)
