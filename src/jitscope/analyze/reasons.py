"""Why did this compile happen? Compare a compile's signature with the function's earlier ones.

Pure functions over ``CompileEvent`` records (no JAX, no live objects), so a saved
events file can be re-explained later. A function is identified by its name and
definition site; ``function_id`` tells two Python function objects at the same site
apart (``jax.jit(lambda ...)`` in a loop, a closure redefined per call).

Precedence when several things changed at once: new function object, pytree structure,
static value (identity-hashed objects first), shape, dtype, weak type, sharding; the
detail lists every difference of the chosen kind, e.g. ``x: f32[3] -> f32[4]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..model import REASON_CATEGORIES, ArgSignature, CompileEvent, LeafSpec, Reason, is_identity_hashed

__all__ = ["REASON_CATEGORIES", "classify", "explain_all", "function_key", "signature_diffs"]

def function_key(event: CompileEvent) -> tuple[str, str, int]:
    """Events with the same key are "the same function" for retrace analysis."""
    d = event.definition
    return (event.function, d.file if d else "", d.line if d else 0)


def _leaf_str(leaf: LeafSpec) -> str:
    return leaf.short()


def _sharding_str(leaf: LeafSpec) -> str:
    return leaf.sharding or "uncommitted"


_COMMITTED_NOTE = ("committed vs uncommitted: an array placed with jax.device_put is committed to its device(s) "
                   "and jit compiles for it apart from an uncommitted one")


def sharding_change_text(path: str, old: LeafSpec, new: LeafSpec) -> str:
    """``x: OLD -> NEW``, named when it is the committed-vs-uncommitted case or a move to other devices."""
    text = f"{path}: {_sharding_str(old)} -> {_sharding_str(new)}"
    if not old.sharding or not new.sharding:
        return f"{text} ({_COMMITTED_NOTE})"
    if old.sharding.startswith("SingleDeviceSharding") and new.sharding.startswith("SingleDeviceSharding"):
        return f"{text} (device assignment changed: the array was moved to another device)"
    return text


def signature_diffs(old: ArgSignature, new: ArgSignature) -> dict[str, list[str]]:
    """Differences between two signatures, by reason category, each ``name: old -> new``."""
    out: dict[str, list[str]] = {}

    def add(cat: str, text: str) -> None:
        out.setdefault(cat, []).append(text)

    if old.treedef != new.treedef:
        olds = dict(_split_tree(old.treedef))
        news = dict(_split_tree(new.treedef))
        for name in list(dict.fromkeys([*olds, *news])):
            if olds.get(name) != news.get(name):
                add("pytree_change", f"{name}: {olds.get(name, '(absent)')} -> {news.get(name, '(absent)')}")
    old_leaves = {leaf.path: leaf.short() for leaf in old.leaves}
    new_leaves = {leaf.path: leaf.short() for leaf in new.leaves}
    for name in dict.fromkeys([*old.static, *new.static]):
        # A leaf that is an array in one call and a Python value in the other (equinox.filter_jit
        # traces only arrays): show the array's type on its side, not "None".
        a = old.static.get(name, old_leaves.get(name))
        b = new.static.get(name, new_leaves.get(name))
        if a != b:
            if is_identity_hashed(a) or is_identity_hashed(b):
                add("static_unhashable", f"{name}: {a} -> {b}")
            else:
                add("static_value_change", f"{name}: {a} -> {b}")
    if "pytree_change" not in out:
        olds_l = {leaf.path: leaf for leaf in old.leaves}
        for leaf in new.leaves:
            prev = olds_l.get(leaf.path)
            if prev is None:
                continue
            change = f"{leaf.path}: {_leaf_str(prev)} -> {_leaf_str(leaf)}"
            if prev.shape != leaf.shape:
                add("shape_change", change)
            elif prev.dtype != leaf.dtype:
                add("dtype_change", change)
            elif prev.weak_type != leaf.weak_type:
                add("weak_type_change", change + " (a Python scalar is weakly typed, an array is not)")
            if (prev.sharding or None) != (leaf.sharding or None):
                add("sharding_change", sharding_change_text(leaf.path, prev, leaf))
    return out


def keyword_change(old: ArgSignature, new: ArgSignature) -> str | None:
    """``keywords: x, y -> (none)`` when two calls passed different arguments by keyword (jit keys its cache
    on it), else None (also when either call's keywords were not recorded)."""
    if old.keywords is None or new.keywords is None or set(old.keywords) == set(new.keywords):
        return None
    return f"keywords: {', '.join(old.keywords) or '(none)'} -> {', '.join(new.keywords) or '(none)'}"


def _split_tree(treedef: str) -> Iterable[tuple[str, str]]:
    for line in treedef.splitlines():
        name, _, tree = line.partition(": ")
        yield name, tree


_ORDER = ("pytree_change", "static_unhashable", "static_value_change", "shape_change",
          "dtype_change", "weak_type_change", "sharding_change")


def _ndiff(d: dict[str, list[str]]) -> int:
    return sum(len(v) for v in d.values())


def classify(event: CompileEvent, history: Sequence[CompileEvent]) -> Reason:
    """The reason for ``event`` given the earlier compiles of the same function (any order).

    ``history`` should hold only events with the same ``function_key``; others are ignored, and
    so are compiles under a different transformation (``event.transform``: the grad or vmap
    of a jitted function is a different program; its first compile is a ``first_compile``).
    """
    key = function_key(event)
    same = [h for h in history if h is not event and function_key(h) == key and h.transform == event.transform]
    jax_text = (event.reason.explanation if event.reason else "") or ""
    if not same:
        if event.transform:
            return Reason("first_compile", f"first compile of {event.function} under a transformation "
                          f"({event.transform})", jax_text)
        return Reason("first_compile", f"first compile of {event.function}", jax_text)
    if event.function_id is not None and all(h.function_id != event.function_id for h in same):
        where = f" (line {event.definition.line})" if event.definition else ""
        n = len({h.function_id for h in same}) + 1
        return Reason(
            "new_function_object",
            f"{event.function}{where} is a new function object, {n} so far from this definition; "
            "jit caches by function identity",
            jax_text)
    candidates = [h for h in same if h.function_id == event.function_id] or list(same)
    if event.signature is None:
        return Reason("other", "argument signature unavailable", jax_text)
    best: dict[str, list[str]] | None = None
    for h in reversed(candidates):  # most recent first; ties keep the most recent
        if h.signature is None:
            continue
        d = signature_diffs(h.signature, event.signature)
        if best is None or _ndiff(d) < _ndiff(best):
            best = d
    if best:
        for cat in _ORDER:
            if cat in best:
                detail = "; ".join(best[cat])
                others = [x for c in _ORDER if c != cat for x in best.get(c, [])]
                if others:
                    detail += "; also " + "; ".join(others)
                return Reason(cat, detail, jax_text)
    # Equal signatures: an argument passed by keyword in this call and by position in every equal one is a
    # cache key of its own (``f(x, y)`` vs ``f(x=x, y=y)``).
    kws = [keyword_change(h.signature, event.signature) for h in reversed(candidates)
           if h.signature is not None and not signature_diffs(h.signature, event.signature)]
    if kws and all(kws):
        return Reason("other", f"an argument passed by keyword in one call and by position in the other "
                      f"({kws[0]}): jit keys its cache on it", jax_text)
    if event.function_id is None and (event.bindings or "").startswith("bodies: "):
        return Reason("other", f"eager {event.function} outside jit: its branch/body functions were traced again "
                      "(closures defined at each call are new functions); jit the function that calls it", jax_text)
    if "Tracing context doesn't match" in jax_text:
        return Reason("other", "the tracing context changed (a config option or context manager)", jax_text)
    return Reason("other", "same signature as an earlier compile (cache evicted or cleared, "
                  "or a config/context change)", jax_text)


def explain_all(events: Sequence[CompileEvent]) -> list[Reason]:
    """Reasons for a whole run, in order: each event against the events before it."""
    seen: dict[tuple[str, str, int], list[CompileEvent]] = {}
    out = []
    for e in events:
        hist = seen.setdefault(function_key(e), [])
        out.append(classify(e, hist))
        hist.append(e)
    return out


class ReasonHistory:
    """The compiles seen so far, per function and transformation: explains each new one as it comes.

    ``classify`` compares only with compiles under the same transformation (grad of f is a
    different program from f: its first compile is a first compile, not a recompile). Not
    thread-safe by itself: the collector calls it under its own lock, in compile order.
    """

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str, int], list[CompileEvent]] = {}

    def seed(self, events: Iterable[CompileEvent]) -> None:
        """Treat ``events`` (from an enclosing session) as earlier compiles."""
        for e in events:
            self._seen.setdefault(function_key(e), []).append(e)

    def classify(self, event: CompileEvent) -> Reason:
        """The reason for ``event``, which then joins the history."""
        hist = self._seen.setdefault(function_key(event), [])
        reason = classify(event, hist)
        hist.append(event)
        return reason
