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
from ..model import CompileEvent, Fix, Location
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


def _next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _sig_key(e: CompileEvent, bucket: dict[tuple[str, int], bool] | None = None) -> tuple:
    s = e.signature
    if s is None:
        return (e.index,)
    leaves = []
    for leaf in s.leaves:
        shape = tuple(_next_pow2(d) if bucket and bucket.get((leaf.path, i)) else d
                      for i, d in enumerate(leaf.shape))
        leaves.append((leaf.path, shape, leaf.dtype, leaf.weak_type, leaf.sharding))
    return (tuple(leaves), tuple(sorted(s.static.items())), s.treedef, e.transform)


def _shape_fix(evs: list[CompileEvent]) -> Fix | None:
    with_sig = [e for e in evs if e.signature is not None]
    # Which (argument, axis) vary across this function's compiles?
    seen: dict[tuple[str, int], set[int]] = defaultdict(set)
    for e in with_sig:
        for leaf in e.signature.leaves:  # type: ignore[union-attr]
            for i, d in enumerate(leaf.shape):
                seen[(leaf.path, i)].add(d)
    varying = {k: v for k, v in seen.items() if len(v) > 1}
    if not varying:
        return None
    bucket = {k: True for k in varying}
    distinct = len({_sig_key(e) for e in with_sig})
    bucketed = len({_sig_key(e, bucket) for e in with_sig})
    avoided = distinct - bucketed
    mean = sum(e.total_seconds for e in with_sig) / len(with_sig)
    axes = []
    for (path, axis), sizes in sorted(varying.items()):
        buckets = sorted({_next_pow2(d) for d in sizes})
        axes.append(f"`{path}` axis {axis}: {len(sizes)} sizes {min(sizes)}..{max(sizes)} -> buckets "
                    f"{{{', '.join(map(str, buckets))}}}")
    e0 = evs[0]
    return Fix(
        title=f"Pad `{e0.function}` inputs to power-of-two buckets ({bucketed} compiles instead of {distinct})",
        description=("Pad the varying dimensions up to the next power of two (jnp.pad, plus a mask or the "
                     "true length as an argument) so a few shapes cover every call: " + "; ".join(axes)
                     + f". Priced at this function's mean compile time, {mean:.3g} s."),
        location=e0.call_site or e0.definition, saving_seconds=max(avoided, 0) * mean,
        saving_compiles=max(avoided, 0))


_ADVICE = {
    "new_function_object": (
        "Create the jitted `{f}` once and reuse it",
        "jax.jit caches by function identity; `jax.jit(lambda ...)` or a closure built on every call is a new "
        "object each time. Hoist the jit (and the function) out of the loop / enclosing function, e.g. define "
        "it at module level and pass changing values as arguments."),
    "static_value_change": (
        "Stop recompiling `{f}` for each static value ({args})",
        "Each new value of a static argument compiles a new program. If the value only affects arithmetic, "
        "pass it as a traced argument (drop it from static_argnums/static_argnames; use lax.cond/jnp.where "
        "or lax.fori_loop instead of Python control flow on it)."),
    "static_unhashable": (
        "Make the static argument of `{f}` compare by value ({args})",
        "The static argument's class hashes by identity (no __eq__/__hash__), so every new instance "
        "recompiles even when equal. Use @dataclass(frozen=True), a NamedTuple, or pass a tuple of its fields."),
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
        "A committed array on another device or sharding compiles a new executable. device_put the inputs "
        "to one sharding once, outside the loop."),
}


def _arg_names(evs: list[CompileEvent]) -> str:
    names: list[str] = []
    for e in evs:
        for part in (e.reason.detail if e.reason else "").split("; "):
            n = part.split(":", 1)[0].strip()
            if n and n not in names and not n.startswith("also ") and " " not in n:
                names.append(n)
    return ", ".join(f"`{n}`" for n in names[:4]) or "the arguments"


def suggest_fixes(events: Sequence[CompileEvent]) -> list[Fix]:
    """Concrete fixes per (function, reason), with savings from this run; largest first."""
    by_fn: dict[Key, list[CompileEvent]] = defaultdict(list)
    for e in events:
        by_fn[function_key(e)].append(e)
    fixes: list[Fix] = []
    for evs in by_fn.values():
        by_cat: dict[str, list[CompileEvent]] = defaultdict(list)
        for e in evs:
            if e.reason:
                by_cat[e.reason.category].append(e)
        f = evs[0].function
        if "shape_change" in by_cat:
            fx = _shape_fix(evs)
            if fx and fx.saving_compiles:  # bucketing that saves nothing is no fix
                fixes.append(fx)
        for cat, (title, desc) in _ADVICE.items():
            hit = by_cat.get(cat)
            if not hit:
                continue
            if cat == "new_function_object":
                # One object would still compile once per distinct signature.
                first: dict[tuple, CompileEvent] = {}
                for e in evs:
                    first.setdefault(_sig_key(e), e)
                redundant = [e for e in evs if first[_sig_key(e)] is not e]
                avoided = len(redundant)
                saving = sum(e.total_seconds for e in redundant)
                if avoided <= 0:
                    continue
            else:
                avoided = len(hit)
                saving = sum(e.total_seconds for e in hit)
            site = hit[0].call_site or hit[0].definition
            fixes.append(Fix(title=title.format(f=f, args=_arg_names(hit)),
                             description=desc,
                             location=site, saving_seconds=saving, saving_compiles=avoided))
    fixes.sort(key=lambda x: (-(x.saving_seconds or 0.0), -(x.saving_compiles or 0), x.title))
    return fixes


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
        rerun_saving_seconds=float(sum(e.phases["compile"] for e in cacheable)))
