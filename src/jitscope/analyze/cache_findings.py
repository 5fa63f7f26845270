"""JW408: JAX's persistent compilation cache, configured, that will not spare the next run these compiles.

From each compile's ``PersistentCacheRecord`` (``collect/persistent_cache.py``: JAX's own hit/miss/write
signals and its reasons not to write) and the run's cache settings. Only when the program configured a
cache directory (a program without one never asked for the cache: nothing to advise). Three causes:

* *below the thresholds*: JAX did not write a compile because it took less than
  ``jax_persistent_cache_min_compile_time_secs`` (or its entry is smaller than the minimum size): every run
  compiles it again. ``warning`` when those compiles add up to a second or more, ``info`` below.
* *a key that changes*: two compiles of one function whose normalised programs are identical (the same
  StableHLO fingerprint) but whose persistent-cache keys differ: some key component (named from JAX's key
  log) changes from compile to compile, so the cache never hits across runs either.
* *not used*: a directory is configured but JAX used no cache for any compile (the record's reason).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .._format import fmt_seconds
from ..jaxmodel import fixes
from ..model import CompileEvent, Fix
from .runtime_findings import RuntimeFinding, _source

WARN_SECONDS = 1.0
_THRESHOLDS = ("min_compile_time", "min_entry_size")


def cache_findings(events: list[CompileEvent], directory: str | None) -> list[RuntimeFinding]:
    """JW408 findings for a run that configured ``directory`` (None: no persistent cache configured)."""
    if not directory:
        return []
    recs = [(e, e.persistent_cache) for e in events if e.persistent_cache is not None]
    if not recs:
        return []
    out: list[RuntimeFinding] = []
    if all(not r.enabled or r.outcome == "disabled" for _, r in recs):
        e, r = recs[0]
        why = f" ({r.detail})" if r.detail else ""
        loc = e.call_site or e.definition
        out.append(RuntimeFinding(
            "JW408", e.function,
            f"jax_compilation_cache_dir is set ({directory}) but JAX used no persistent cache for any of the "
            f"{len(recs)} compiles{why}", "warning", loc,
            Fix(fixes.PERSISTENT_TOO_LATE.title, fixes.PERSISTENT_TOO_LATE.why, location=loc),
            source=_source(loc), details={"cause": "not_used", "compiles": len(recs),
                                          "evidence": "every compile's persistent-cache record says disabled"}))
        return out
    out += _below_thresholds(recs)
    out += _unstable_keys(recs)
    return out


def _below_thresholds(recs: list[tuple[CompileEvent, Any]]) -> list[RuntimeFinding]:
    skipped = [(e, r) for e, r in recs if r.outcome == "miss" and r.written is False and r.not_written in _THRESHOLDS]
    if not skipped:
        return []
    seconds = sum((r.compile_seconds if r.compile_seconds is not None else e.phases.get("compile", 0.0))
                  for e, r in skipped)
    by_fn: dict[str, int] = defaultdict(int)
    for e, _ in skipped:
        by_fn[e.function] += 1
    names = ", ".join(f"{f} x{n}" if n > 1 else f for f, n in list(by_fn.items())[:4])
    e, r = max(skipped, key=lambda x: x[0].phases.get("compile", 0.0))
    minimum = f"{r.min_compile_seconds:g} s" if r.min_compile_seconds is not None else "the minimum"
    loc = e.call_site or e.definition
    return [RuntimeFinding(
        "JW408", e.function,
        f"{len(skipped)} compile{'s' if len(skipped) != 1 else ''} ({names}; {fmt_seconds(seconds)} of backend "
        f"compile) not written to the persistent cache: each took less than "
        f"jax_persistent_cache_min_compile_time_secs ({minimum}), so every run compiles {'them' if len(skipped) > 1 else 'it'} "
        "again", "warning" if seconds >= WARN_SECONDS else "info", loc,
        Fix(fixes.PERSISTENT_THRESHOLD.title, fixes.PERSISTENT_THRESHOLD.why, location=loc),
        compile_index=e.index, seconds=seconds, source=_source(loc),
        details={"cause": "below_threshold", "compiles": len(skipped), "min_compile_seconds": r.min_compile_seconds,
                 "evidence": "JAX's reason not to write each compile (persistent-cache log: "
                             f"{r.not_written})"})]


def _unstable_keys(recs: list[tuple[CompileEvent, Any]]) -> list[RuntimeFinding]:
    by_program: dict[tuple[str, str], list[tuple[CompileEvent, Any]]] = defaultdict(list)
    for e, r in recs:
        if e.fingerprint and r.key:
            by_program[(e.function, e.fingerprint)].append((e, r))
    out = []
    for (fn, _), items in by_program.items():
        keys = {r.key for _, r in items}
        if len(keys) < 2:
            continue
        (e0, r0), (e1, r1) = items[0], next(x for x in items if x[1].key != items[0][1].key)
        a = {c.name: c.hash for c in r0.components}
        b = {c.name: c.hash for c in r1.components}
        changed = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
        what = ", ".join(changed) if changed else "a component JAX did not log"
        loc = e1.call_site or e1.definition
        out.append(RuntimeFinding(
            "JW408", fn,
            f"compiles #{e0.index} and #{e1.index} of {fn} are the same program but got different "
            f"persistent-cache keys (changed: {what}): the cache cannot hit across runs", "warning", loc,
            Fix(fixes.PERSISTENT_KEY.title, fixes.PERSISTENT_KEY.why, location=loc),
            compile_index=e1.index, source=_source(loc),
            details={"cause": "unstable_key", "changed": changed, "earlier_index": e0.index,
                     "evidence": "equal program fingerprints, different persistent-cache keys"}))
    return out
