"""Per-function compile totals and concrete fixes, each priced from the run's own numbers.

Pure functions over ``CompileEvent`` records. A fix's saving is what this run would not
have spent: the compiles it avoids and their measured seconds. For shape changes the
fix is bucketing: pad each varying dimension up to the next power of two; the saving is
the number of distinct signatures observed minus the number of distinct bucketed
signatures, priced at this function's mean compile seconds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from .._serde import Record
from ..jaxmodel import fixes
from ..jaxmodel.fixes import REUSE_STATIC_OBJECT, make_traced
from ..model import CompileEvent, Fix, Location, has_identity_members
from . import fix_savings, fix_source
from .advice_scope import library_defined, library_internal
from .reasons import function_key

Key = tuple[str, str, int]


def recompiles(events: Sequence[CompileEvent]) -> list[CompileEvent]:
    """The compiles in ``events`` that were not a function's first (the ones a budget may forbid)."""
    return [e for e in events if e.reason is not None and e.reason.category != "first_compile"]


@dataclass
class FunctionSummary(Record):
    """Compile totals for one jitted function (name + definition site)."""

    function: str
    definition: Location | None = None
    compiles: int = 0
    seconds: float = 0.0  # trace + lower + compile, all of this function's compiles
    share_of_wall: float | None = None  # seconds / the run's wall time
    reasons: dict[str, int] = field(default_factory=dict)  # category -> count
    call_sites: list[Location] = field(default_factory=list)  # distinct, in order of first use


@dataclass
class InternalRoutine(Record):
    """JAX's own compiles of one routine (an eager operation, a ``jnp`` routine): how many and how long."""

    name: str  # the program JAX compiled, by its module name (``jit(_reduce_sum)``, ``jit(add)``)
    compiles: int = 0
    seconds: float = 0.0


def top_routines(counts: dict[str, list[float]], limit: int = 10) -> list[InternalRoutine]:
    """The ``limit`` routines with the most seconds: ``counts`` maps a name to [compiles, seconds]."""
    rows = sorted(counts.items(), key=lambda kv: (-kv[1][1], kv[0]))[:limit]
    return [InternalRoutine(name, int(c), s) for name, (c, s) in rows]


@dataclass
class PersistentCacheInfo(Record):
    """JAX's persistent compilation cache during the run, and what it would save on a rerun."""

    enabled: bool = False
    directory: str | None = None
    min_compile_seconds: float | None = None  # jax_persistent_cache_min_compile_time_secs
    hits: int = 0
    misses: int = 0
    seconds_saved: float = 0.0  # JAX's own compile_time_saved_sec, summed over hits in this run
    rerun_cacheable_compiles: int = 0  # compiles slow enough to be written to the cache
    rerun_saving_seconds: float = 0.0  # their compile seconds: what a warm cache skips on a rerun
    # From each compile's ``persistent_cache`` record (None in files older than it): entries JAX wrote,
    # and the compiles it did not write by reason (``model.NOT_WRITTEN``), e.g. {"min_compile_time": 3}.
    written: int | None = None
    not_written: dict[str, int] | None = None


def summarize_functions(events: Sequence[CompileEvent], wall_seconds: float) -> list[FunctionSummary]:
    """One summary per function, most compile seconds first."""
    groups: dict[Key, list[CompileEvent]] = defaultdict(list)
    for e in events:
        groups[function_key(e)].append(e)
    out = []
    for evs in groups.values():
        secs = sum(e.total_seconds for e in evs)
        reasons: dict[str, int] = {}
        sites: list[Location] = []
        for e in evs:
            cat = e.reason.category if e.reason else "other"
            reasons[cat] = reasons.get(cat, 0) + 1
            if e.call_site and all((s.file, s.line) != (e.call_site.file, e.call_site.line) for s in sites):
                sites.append(e.call_site)
        out.append(FunctionSummary(evs[0].function, evs[0].definition, len(evs), secs,
                                   secs / wall_seconds if wall_seconds > 0 else None, reasons, sites))
    out.sort(key=lambda f: (-f.seconds, -f.compiles, f.function))
    return out


def _shape_fix(evs: list[CompileEvent], avoided: list[CompileEvent]) -> Fix:
    varying = fix_savings.varying_axes(evs)
    sizes: dict[tuple[str, int], set[int]] = defaultdict(set)
    for e in evs:
        for leaf in e.signature.leaves if e.signature else ():
            for i, d in enumerate(leaf.shape):
                if (leaf.path, i) in varying:
                    sizes[(leaf.path, i)].add(d)
    with_sig = [e for e in evs if e.signature is not None]
    mean = sum(e.total_seconds for e in with_sig) / max(len(with_sig), 1)
    axes = []
    for (path, axis), seen in sorted(sizes.items()):
        buckets = sorted({fix_savings._next_pow2(d) for d in seen})
        axes.append(f"`{path}` axis {axis}: {len(seen)} sizes {min(seen)}..{max(seen)} -> buckets "
                    f"{{{', '.join(map(str, buckets))}}}")
    e0 = evs[0]
    n = len(evs)
    return Fix(
        title=f"Pad `{e0.function}` inputs to power-of-two buckets ({n - len(avoided)} compiles instead of {n})",
        description=("Pad the varying dimensions up to the next power of two (jnp.pad, plus a mask or the "
                     "true length as an argument) so a few shapes cover every call: " + "; ".join(axes)
                     + f". Priced at this function's mean compile time, {mean:.3g} s."),
        location=e0.call_site or e0.definition, saving_seconds=len(avoided) * mean,
        saving_compiles=len(avoided))


_ADVICE = {
    "new_function_object": (
        "Create the jitted `{f}` once and reuse it",
        fixes.CREATE_ONCE.why[0].upper() + fixes.CREATE_ONCE.why[1:] + " Hoist the jit out of the loop or "
        "enclosing function; pass changing values as arguments. Counts repeats at one call site only."),
    "static_value_change": (
        "Stop recompiling `{f}` for each static value ({args})",
        "Each new static value compiles a new program. To pass it traced, {traced}; Python control flow on it "
        "becomes lax.cond, jnp.where or lax.fori_loop."),
    "static_unhashable": (
        "Make the static argument of `{f}` compare by value ({args})",
        "The static argument's class hashes by identity (no __eq__/__hash__), so every new instance "
        "recompiles even when equal. Use @dataclass(frozen=True), a NamedTuple, or pass a tuple of its fields. "
        "Counted as if the instances were equal."),
    "dtype_change": (
        "Fix the dtype of {args} at the call boundary of `{f}`",
        "Cast once where the value enters (x.astype(jnp.float32) / jnp.asarray(x, dtype)) so every call "
        "sees the same dtype."),
    "weak_type_change": (
        "Pass {args} to `{f}` as typed arrays, not Python scalars",
        "A Python scalar is weakly typed (~f32[]) and an array is not; mixing them compiles twice. "
        "Wrap scalars with jnp.asarray(x, jnp.float32) (or always pass Python scalars)."),
    "pytree_change": (
        "Keep the pytree structure of {args} fixed for `{f}`",
        "A different container structure (keys, list length, None vs array) is a new signature. Always pass "
        "the same keys/fields; use placeholder arrays instead of omitting entries."),
    "sharding_change": (
        "Put {args} on one device/sharding before calling `{f}`",
        "A committed array on another device or sharding compiles a new executable, and so does a committed "
        "array (made by jax.device_put) where an uncommitted one was passed before. device_put the inputs to "
        "one sharding once, outside the loop (or never commit them)."),
}


def _detail_names(e: CompileEvent) -> list[str]:
    """The argument names of a reason's own kind (``n: 1 -> 2; m: ...``), not those after ``also``."""
    names = []
    for part in (e.reason.detail if e.reason else "").split("; "):
        if part.startswith("also "):
            break
        n = part.split(":", 1)[0].strip()
        if n and ":" in part and " " not in n:
            names.append(n)
    return names


def _arg_names(evs: list[CompileEvent]) -> str:
    names = list(dict.fromkeys(n for e in evs for n in _detail_names(e)))
    return ", ".join(f"`{n}`" for n in names[:4]) or "the arguments"


@dataclass
class FixesTotal(Record):
    """Every fix in the list applied at once: a compile that several fixes remove counts once."""

    compiles: int = 0  # compiles removed
    seconds: float = 0.0  # their measured trace + lower + compile seconds
    remaining_compiles: int = 0  # what the run would still compile
    sum_of_fixes: int = 0  # the fixes' own savings added up: more than ``compiles`` where they overlap


@dataclass
class ExpectedRecompiles(Record):
    """Recompiles for a static argument no fix can remove: each value is its own program."""

    function: str
    argument: str
    why: str  # "sets a shape" or "not a number"
    compiles: int = 0
    location: Location | None = None  # where it sets a shape, or the definition


@dataclass
class FixPlan:
    """The fixes of a run, their combined saving, and the recompiles that are expected (not saved:
    ``WatchResult`` carries its three parts)."""

    fixes: list[Fix] = field(default_factory=list)
    total: FixesTotal = field(default_factory=FixesTotal)
    expected: list[ExpectedRecompiles] = field(default_factory=list)


def _rebuilt_members(evs: list[CompileEvent]) -> bool:
    """Whether the identity-hashed statics these recompiles changed are containers of functions."""
    return any(has_identity_members(e.reason.detail.split("; ")[0].rsplit(" -> ", 1)[-1]) for e in evs if e.reason)


def _changed_statics(e: CompileEvent) -> set[str]:
    cat = e.reason.category if e.reason else ""
    return set(_detail_names(e)) if cat == "static_value_change" else set()


def _expected(evs: list[CompileEvent]) -> tuple[set[str], list[ExpectedRecompiles]]:
    """Static names of one function that cannot be traced, with the recompiles they explain."""
    changed = [e for e in evs if _changed_statics(e)]
    if not changed:
        return set(), []
    numeric = fix_savings.numeric_statics(evs)
    names = sorted({n for e in changed for n in _changed_statics(e)})
    out, untraceable = [], set()
    for name in names:
        try:
            uses = fix_source.static_uses(evs[0].definition, name) if evs[0].definition else {}
        except Exception:  # the user's source is only read for advice: never a reason to fail
            uses = {}
        if name not in numeric:
            why, where = "not a number", evs[0].definition
        elif "shape" in uses:
            why, where = "sets a shape", uses["shape"]
        else:
            continue
        untraceable.add(name)
        n = sum(1 for e in changed if name in _changed_statics(e))
        out.append(ExpectedRecompiles(evs[0].function, name, why, n, where))
    return untraceable, out


def _code_change(cat: str, hit: list[CompileEvent], traceable: list[str]) -> tuple[Location, str] | None:
    e = hit[0]
    if cat == "new_function_object" and e.call_site is not None:
        return fix_source.hoisted_jit(e.call_site)
    if cat == "static_value_change" and e.definition is not None and traceable:
        return fix_source.static_to_traced(e.definition, traceable)
    return None


def _fix_key(e: CompileEvent) -> tuple:
    """Fixes are planned per function within one test (``advice_scope``): compiles of two tests are never
    merged by a fix."""
    return (*function_key(e), e.test)


def plan_fixes(events: Sequence[CompileEvent]) -> FixPlan:
    """Concrete fixes per (function, reason), each priced by the compiles it alone removes; the total
    with all of them applied; and the recompiles that are expected (a static argument setting a shape).

    Only the user's compiles get fixes: a compile a library both defines and calls is the library's
    (``advice_scope.library_internal``); under pytest each test is planned on its own."""
    by_fn: dict[tuple, list[CompileEvent]] = defaultdict(list)
    for e in events:
        if not library_internal(e):
            by_fn[_fix_key(e)].append(e)
    expected: list[ExpectedRecompiles] = []
    untraceable: dict[tuple, set[str]] = {}
    for k, evs in by_fn.items():
        untraceable[k], exp = _expected(evs)
        expected += exp
    keys = fix_savings.by_function([e for evs in by_fn.values() for e in evs], untraceable, key=_fix_key)
    fixes: list[Fix] = []
    applied: dict[tuple, set[str]] = defaultdict(set)
    for k, evs in by_fn.items():
        by_cat: dict[str, list[CompileEvent]] = defaultdict(list)
        for e in evs:
            if e.reason:
                by_cat[e.reason.category].append(e)
        f = evs[0].function
        for cat in ("shape_change", *_ADVICE):
            hit = by_cat.get(cat)
            if not hit:
                continue
            if cat == "static_value_change" and library_defined(evs[0]):
                continue  # which arguments are static is the library's choice (advice_scope)
            avoided = keys[k].removed({cat})
            if not avoided:
                continue  # nothing this fix alone removes: no fix
            applied[k].add(cat)
            if cat == "shape_change":
                fixes.append(_shape_fix(evs, avoided))
                continue
            title, desc = _ADVICE[cat]
            if cat == "static_unhashable" and _rebuilt_members(hit):  # functions: no __eq__ makes them equal
                title, desc = (REUSE_STATIC_OBJECT.title[0].upper() + REUSE_STATIC_OBJECT.title[1:]
                               + " ({args} of `{f}`)", REUSE_STATIC_OBJECT.why[0].upper()
                               + REUSE_STATIC_OBJECT.why[1:] + ". Counted as if the objects were one.")
            traceable = sorted(keys[k].traceable & {n for e in hit for n in _changed_statics(e)})
            args = (", ".join(f"`{n}`" for n in traceable) if cat == "static_value_change"
                    else _arg_names(hit))
            site = avoided[0].call_site or avoided[0].definition
            if "{traced}" in desc:  # phrased for the wrapper the user wrote (jaxmodel): never an option it lacks
                desc = desc.format(traced=make_traced(", ".join(traceable) or "the argument",
                                                      hit[0].wrapper or "jax.jit"))
            fix = Fix(title=title.format(f=f, args=args), description=desc, location=site,
                      saving_seconds=sum(e.total_seconds for e in avoided), saving_compiles=len(avoided))
            try:
                change = _code_change(cat, avoided, traceable)
            except Exception:  # source we cannot rewrite: the fix in words only
                change = None
            if change is not None:
                fix.location, fix.replacement = change
            fixes.append(fix)
    fixes = _merged(fixes)
    expected = _merged_expected(expected)
    fixes.sort(key=lambda x: (-(x.saving_seconds or 0.0), -(x.saving_compiles or 0), x.title))
    removed = fix_savings.total_removed(keys, applied)
    total = FixesTotal(compiles=len(removed), seconds=float(sum(e.total_seconds for e in removed)),
                       remaining_compiles=len(events) - len(removed),
                       sum_of_fixes=sum(fx.saving_compiles or 0 for fx in fixes))
    expected.sort(key=lambda x: (-x.compiles, x.function, x.argument))
    return FixPlan(fixes, total, expected)


def _merged(fixes: list[Fix]) -> list[Fix]:
    """One fix per (title, place): the same change found in several tests is one change, its savings added."""
    out: dict[tuple, Fix] = {}
    for fx in fixes:
        loc = fx.location
        k = (fx.title, fx.replacement, (loc.file, loc.line) if loc else None)
        if k not in out:
            out[k] = fx
            continue
        kept = out[k]
        kept.saving_seconds = (kept.saving_seconds or 0.0) + (fx.saving_seconds or 0.0)
        kept.saving_compiles = (kept.saving_compiles or 0) + (fx.saving_compiles or 0)
    return list(out.values())


def _merged_expected(expected: list[ExpectedRecompiles]) -> list[ExpectedRecompiles]:
    out: dict[tuple, ExpectedRecompiles] = {}
    for x in expected:
        k = (x.function, x.argument, x.why, x.location)
        if k in out:
            out[k].compiles += x.compiles
        else:
            out[k] = x
    return list(out.values())


def suggest_fixes(events: Sequence[CompileEvent]) -> list[Fix]:
    """Concrete fixes per (function, reason), with savings from this run; largest first."""
    return plan_fixes(events).fixes


def persistent_cache_info(events: Sequence[CompileEvent], enabled: bool, directory: str | None,
                          min_compile_seconds: float | None, seconds_saved: float) -> PersistentCacheInfo:
    """Cache hits/misses of this run and what a warm persistent cache would save on a rerun."""
    threshold = min_compile_seconds if min_compile_seconds is not None else 1.0
    compiled = [e for e in events if "compile" in e.phases]
    cacheable = [e for e in compiled if e.phases["compile"] >= threshold and e.cache_hit is not True]
    return PersistentCacheInfo(
        enabled=enabled, directory=directory, min_compile_seconds=min_compile_seconds,
        hits=sum(1 for e in compiled if e.cache_hit is True),
        misses=sum(1 for e in compiled if e.cache_hit is False),
        seconds_saved=seconds_saved,
        rerun_cacheable_compiles=len(cacheable),
        rerun_saving_seconds=float(sum(e.phases["compile"] for e in cacheable)),
        **_written_counts(compiled))


def _written_counts(compiled: Sequence[CompileEvent]) -> dict:
    """``written`` / ``not_written`` from the compiles' cache records; empty when none has one."""
    records = [e.persistent_cache for e in compiled if e.persistent_cache is not None and e.persistent_cache.enabled]
    if not records:
        return {}
    why: dict[str, int] = {}
    for r in records:
        if r.outcome != "hit" and not r.written:
            why[r.not_written or "unknown"] = why.get(r.not_written or "unknown", 0) + 1
    return {"written": sum(1 for r in records if r.written), "not_written": why}
