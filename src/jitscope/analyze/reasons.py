"""Why did this compile happen? Compare a compile's signature with the function's earlier ones.

Pure functions over ``CompileEvent`` records (no JAX, no live objects), so a saved
events file can be re-explained later. A function is identified by its name and
definition site; ``function_id`` tells two Python function objects at the same site
apart (``jax.jit(lambda ...)`` in a loop, a closure redefined per call).

Precedence when several things changed at once: new function object, pytree structure,
static value (identity-hashed objects first), shape, dtype, weak type, sharding; the
detail lists every difference of the chosen kind, e.g. ``x: f32[3] -> f32[4]``.

Cost stays flat as a run grows (issue #23 item 6): a compile is compared with the function's
``RECENT`` most recent compiles and with every earlier compile of exactly its signature (found by a
hash, however old), not with its whole history; a retraced function's 2,000th compile costs what its
100th does. The nearest earlier signature is then the nearest within that window (an identical one is
always found).
"""

from __future__ import annotations

import re
from collections import deque
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


def readable_pair(a: object, b: object) -> tuple[str, str]:
    """Two recorded values as text, floats at the precision that tells them apart: ``0.30000000000000004`` and
    ``0.4`` read ``0.3 -> 0.4``; two floats that differ only far down keep the digits that differ."""
    ta, tb = str(a), str(b)
    try:
        fa, fb = float(ta), float(tb)
    except ValueError:
        return ta, tb
    if fa != fa or fb != fb or not any(c in ta + tb for c in ".eE"):
        return ta, tb  # NaN, or integers: as they are
    for digits in range(4, 18):
        ra, rb = f"{fa:.{digits}g}", f"{fb:.{digits}g}"
        if (ra != rb) == (fa != fb):  # the recorded text where it is as short (it is the exact value)
            return (ta if len(ta) <= len(ra) else ra), (tb if len(tb) <= len(rb) else rb)
    return ta, tb


def signature_diffs(old: ArgSignature, new: ArgSignature) -> dict[str, list[str]]:
    """Differences between two signatures, by reason category, each ``name: old -> new``."""
    out: dict[str, list[str]] = {}

    def add(cat: str, text: str) -> None:
        out.setdefault(cat, []).append(text)

    if old.treedef != new.treedef:
        olds = dict(_split_tree(old.treedef))
        news = dict(_split_tree(new.treedef))
        for name in list(dict.fromkeys([*olds, *news])):
            if olds.get(name) == news.get(name):
                continue
            if name in olds and name in news and old.nodes and new.nodes:
                for change in node_changes(old.nodes, new.nodes, name):
                    add("pytree_change", change)
            else:
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
                ta, tb = readable_pair(a, b)
                add("static_value_change", f"{name}: {ta} -> {tb}")
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


_ARGUMENT_LINE = re.compile(r"^(\S[^:]*): (PyTreeDef\(.*)$")


def options_change(old: ArgSignature, new: ArgSignature) -> str | None:
    """``donate_argnums: (none) -> (0,)`` when two calls went through jit objects with other options
    (``ArgSignature.options``), else None."""
    if old.options == new.options:
        return None
    names = dict.fromkeys([*old.options, *new.options])
    return "; ".join(f"{n}: {old.options.get(n, '(none)')} -> {new.options.get(n, '(none)')}"
                     for n in names if old.options.get(n) != new.options.get(n))


def _split_tree(treedef: str) -> Iterable[tuple[str, str]]:
    """``name: PyTreeDef(...)`` per dynamic argument. A tree printed on several lines (flax's graph
    definitions, in files written before the collector made it one line) continues its argument."""
    name, parts = None, []
    for line in treedef.splitlines():
        m = _ARGUMENT_LINE.match(line)
        if m is None and name is not None:
            parts.append(line.strip())
            continue
        if name is not None:
            yield name, " ".join(parts)
        name, parts = (m.group(1), [m.group(2)]) if m else line.partition(": ")[::2]
        if m is None:
            parts = [parts]  # type: ignore[list-item]
    if name is not None:
        yield name, " ".join(parts)


def _changed_part(a: str, b: str, width: int = 60) -> tuple[str, str]:
    """The part of two texts between their common start and common end, cut to ``width``."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    # widen to the enclosing token, so ``type='NoneType'`` is shown whole rather than ``None``
    while i > 0 and (a[i - 1].isalnum() or a[i - 1] in "_'\"=."):
        i -= 1
    while j > 0 and (a[len(a) - j].isalnum() or a[len(a) - j] in "_'\"."):
        j -= 1
    cut = lambda s: s if len(s) <= width else s[: width - 3] + "..."  # noqa: E731
    return cut(a[i:len(a) - j] or "''"), cut(b[i:len(b) - j] or "''")


def node_changes(old: dict[str, str], new: dict[str, str], root: str) -> list[str]:
    """How the pytree nodes under argument ``root`` differ, outermost change first, one line each:
    ``m (M): static data 'lin' -> 'tanh'``, ``d: keys ['a'] -> ['a', 'b']``, ``model.extra: added (Linear)``.
    A node inside a changed one is not listed again."""
    paths = [p for p in dict.fromkeys([*old, *new]) if p == root or p.startswith((root + ".", root + "["))]
    out: list[str] = []
    reported: list[str] = []
    for path in paths:
        if any(path.startswith((r + ".", r + "[")) for r in reported):
            continue
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        reported.append(path)
        if a is None or b is None:
            out.append(f"{path}: {'added' if a is None else 'removed'} ({(b or a or '').split('[', 1)[0]})")
            continue
        type_a, _, rest_a = a.partition(" ")
        type_b, _, rest_b = b.partition(" ")
        kind_a, kind_b = type_a.split("[", 1)[0], type_b.split("[", 1)[0]
        if kind_a != kind_b:
            out.append(f"{path}: {kind_a} -> {kind_b}")
        elif kind_a == "dict":
            out.append(f"{path}: keys {rest_a or '[]'} -> {rest_b or '[]'}")
        elif rest_a != rest_b:
            x, y = _changed_part(rest_a, rest_b)
            out.append(f"{path} ({kind_a}): static data {x} -> {y}")
        else:
            out.append(f"{path} ({kind_a}): {type_a[len(kind_a):]} -> {type_b[len(kind_b):]} children")
    return out


_ORDER = ("pytree_change", "static_unhashable", "static_value_change", "shape_change",
          "dtype_change", "weak_type_change", "sharding_change")


def _ndiff(d: dict[str, list[str]]) -> int:
    return sum(len(v) for v in d.values())


def _distance(old: ArgSignature, new: ArgSignature, d: dict[str, list[str]]) -> int:
    """How far apart two signatures are, to find the closest earlier compile: every difference,
    including leaves that changed on paths both share when the structure changed too (a shape change
    against the compile with the same structure is closer than a structure change that hides it)."""
    n = _ndiff(d)
    if "pytree_change" in d:
        before = {leaf.path: leaf for leaf in old.leaves}
        n += sum(1 for leaf in new.leaves if leaf.path in before and before[leaf.path].short() != leaf.short())
    return n


RECENT = 16  # earlier compiles of a function a new one is compared with (plus every identical signature)


def _signature_key(sig: ArgSignature) -> tuple:
    """Equal keys: ``signature_diffs`` finds nothing between the two signatures."""
    return (sig.treedef, tuple(sorted(sig.static.items())),
            tuple((leaf.path, tuple(leaf.shape), leaf.dtype, leaf.weak_type, leaf.sharding or None)
                  for leaf in sig.leaves))


class _Stream:
    """Compiles of one function object: the most recent ones, and the recent ones of each signature."""

    __slots__ = ("exact", "recent")

    def __init__(self) -> None:
        self.recent: deque[tuple[int, CompileEvent]] = deque(maxlen=RECENT)
        self.exact: dict[tuple, deque[tuple[int, CompileEvent]]] = {}

    def add(self, position: int, event: CompileEvent) -> None:
        self.recent.append((position, event))
        if event.signature is not None:
            self.exact.setdefault(_signature_key(event.signature), deque(maxlen=RECENT)).append((position, event))

    def candidates(self, sig: ArgSignature | None) -> list[CompileEvent]:
        """The compiles to compare with, oldest first."""
        found = dict(self.recent)
        if sig is not None:
            found.update(self.exact.get(_signature_key(sig), ()))
        return [found[p] for p in sorted(found)]


class _Past:
    """Earlier compiles of one function under one transformation, indexed for ``_classify``."""

    __slots__ = ("all", "count", "ids", "streams")

    def __init__(self) -> None:
        self.count = 0
        self.ids: set[int | None] = set()
        self.streams: dict[int | None, _Stream] = {}
        self.all = _Stream()

    def add(self, event: CompileEvent) -> None:
        position, self.count = self.count, self.count + 1
        self.ids.add(event.function_id)
        self.streams.setdefault(event.function_id, _Stream()).add(position, event)
        self.all.add(position, event)


def classify(event: CompileEvent, history: Sequence[CompileEvent]) -> Reason:
    """The reason for ``event`` given the earlier compiles of the same function (any order).

    ``history`` should hold only events with the same ``function_key``; others are ignored, and
    so are compiles under a different transformation (``event.transform``: the grad or vmap
    of a jitted function is a different program; its first compile is a ``first_compile``).
    """
    key = function_key(event)
    # Another transformation (grad of f) or another wrapper (jax.pmap(f) and equinox.filter_pmap(f)) is a
    # different program: its first compile is a first compile, not a recompile.
    past = _Past()
    for h in history:
        if h is not event and function_key(h) == key and h.transform == event.transform and h.wrapper == event.wrapper:
            past.add(h)
    return _classify(event, past, any(function_key(h) == key for h in history if h is not event))


def _classify(event: CompileEvent, past: _Past, key_seen: bool) -> Reason:
    """``past``: the earlier compiles of the same function, transformation and wrapper; ``key_seen``: the
    function compiled before in any form."""
    jax_text = (event.reason.explanation if event.reason else "") or ""
    if not past.count:
        if event.transform:
            return Reason("first_compile", f"first compile of {event.function} under a transformation "
                          f"({event.transform})", jax_text)
        if event.wrapper and key_seen:
            return Reason("first_compile", f"first compile of {event.function} under {event.wrapper}", jax_text)
        return Reason("first_compile", f"first compile of {event.function}", jax_text)
    if event.function_id is not None and event.function_id not in past.ids:
        where = f" (line {event.definition.line})" if event.definition else ""
        n = len(past.ids) + 1
        return Reason(
            "new_function_object",
            f"{event.function}{where} is a new function object, {n} so far from this definition; "
            "jit caches by function identity",
            jax_text)
    candidates = (past.streams.get(event.function_id) or past.all).candidates(event.signature)
    if event.signature is None:
        return Reason("other", "argument signature unavailable", jax_text)
    best: dict[str, list[str]] | None = None
    best_distance = 0
    for h in reversed(candidates):  # most recent first; ties keep the most recent
        if h.signature is None:
            continue
        d = signature_diffs(h.signature, event.signature)
        dist = _distance(h.signature, event.signature, d)
        if best is None or dist < best_distance:
            best, best_distance = d, dist
    if best:
        for cat in _ORDER:
            if cat in best:
                detail = "; ".join(best[cat])
                others = [x for c in _ORDER if c != cat for x in best.get(c, [])]
                if others:
                    detail += "; also " + "; ".join(others)
                return Reason(cat, detail, jax_text)
    # Equal signatures: a jit object of the same function with other options (donation, keep_unused,
    # shardings) compiles its own program from the same trace.
    equal = [h.signature for h in reversed(candidates)
             if h.signature is not None and not signature_diffs(h.signature, event.signature)]
    opts = [options_change(s, event.signature) for s in equal]
    if opts and all(opts):
        return Reason("other", f"jit options differ ({opts[0]}): another jit of the same function with other "
                      "options compiles its own program", jax_text)
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
        grew = _CONTEXT_GREW.search(jax_text)
        if grew and int(grew["now"]) > int(grew["before"]):
            return Reason("other", f"JAX's tracing context grew from {grew['before']} to {grew['now']} values since "
                          "the earlier compile: a module imported in between registered config options that every "
                          "jit key includes (on JAX 0.12 importing jax.extend or pallas does), so everything "
                          "compiled before compiles once more; import it before the first compile", jax_text)
        return Reason("other", "the tracing context changed (a config option or context manager)", jax_text)
    return Reason("other", "same signature as an earlier compile (cache evicted or cleared, "
                  "or a config/context change)", jax_text)


# JAX's explanation when the tracing context has more (or fewer) values than at the earlier compile (0.10, 0.12).
_CONTEXT_GREW = re.compile(r"number of tracing context values differs: now (?P<now>\d+) and before (?P<before>\d+)")


def explain_all(events: Sequence[CompileEvent]) -> list[Reason]:
    """Reasons for a whole run, in order: each event against the events before it."""
    history = ReasonHistory()
    return [history.classify(e) for e in events]


class ReasonHistory:
    """The compiles seen so far, per function and transformation: explains each new one as it comes.

    ``classify`` compares only with compiles under the same transformation (grad of f is a
    different program from f: its first compile is a first compile, not a recompile). Not
    thread-safe by itself: the collector calls it under its own lock, in compile order.
    """

    def __init__(self) -> None:
        self._seen: dict[tuple, _Past] = {}  # (function_key, transform, wrapper) -> its earlier compiles, indexed
        self._keys: set[tuple] = set()  # function keys compiled in any form

    def _past(self, event: CompileEvent) -> _Past:
        return self._seen.setdefault((*function_key(event), event.transform, event.wrapper), _Past())

    def seed(self, events: Iterable[CompileEvent]) -> None:
        """Treat ``events`` (from an enclosing session) as earlier compiles."""
        for e in events:
            self._past(e).add(e)
            self._keys.add(function_key(e))

    def classify(self, event: CompileEvent) -> Reason:
        """The reason for ``event``, which then joins the history."""
        past = self._past(event)
        key = function_key(event)
        reason = _classify(event, past, key in self._keys)
        past.add(event)
        self._keys.add(key)
        return reason
