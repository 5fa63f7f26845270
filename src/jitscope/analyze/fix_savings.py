"""What a set of fixes really removes: compiles that become the same program once the fixes are in.

A fix changes what jit keys its cache on: bucketing pads shapes, a traced argument takes a
static value out of the key, one jitted object instead of many takes the function's identity
out. Applying a set of fixes, two compiles of one function merge when their keys, with those
parts normalised, are equal; every merged group still compiles once. So a fix's saving is
"compiles - groups" under that fix alone, and "all fixes applied" is the same count under
every fix at once: a compile two fixes would both remove counts once, and a compile where
something else changed too (a static value *and* the pytree) is removed by neither alone.

Two limits, both on the side of saying less:

* One jitted object instead of many merges compiles made at the same call site, of objects
  that bind the same values (``CompileEvent.bindings``: partial arguments, closure values and
  globals read, arrays by type): a loop or a helper that re-jits per call. Separate call sites
  that each jit the function (one per test), or one site building a different ``partial``
  per test parameter, are left alone: "create it once" there changes what the program means.
* Only compiles one user action can merge are grouped (``advice_scope.py``): the groups are per test
  under pytest (the caller groups by ``key``), and two jit objects with other options (donation,
  static arguments, shardings) are two functions.
* A static argument stays in the key when it cannot be traced: its values are not all
  numbers (a string mode, a tuple, a callable), or it sets a shape (``expected_statics``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from ..model import CompileEvent, identity_bindings, is_identity_hashed
from .advice_scope import jit_options
from .reasons import function_key

CATEGORIES = ("new_function_object", "static_value_change", "static_unhashable", "shape_change",
              "dtype_change", "weak_type_change", "pytree_change", "sharding_change")


def _next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _is_number(text: str) -> bool:
    if text in ("True", "False"):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def numeric_statics(events: Sequence[CompileEvent]) -> set[str]:
    """Static argument names whose every observed value is a number or bool (could be traced)."""
    names: dict[str, bool] = {}
    for e in events:
        for k, v in (e.signature.static.items() if e.signature else ()):
            names[k] = names.get(k, True) and _is_number(v)
    return {k for k, ok in names.items() if ok}


def varying_axes(events: Sequence[CompileEvent]) -> set[tuple[str, int]]:
    """(argument path, axis) pairs whose size differs across ``events``."""
    seen: dict[tuple[str, int], set[int]] = defaultdict(set)
    for e in events:
        for leaf in e.signature.leaves if e.signature else ():
            for i, d in enumerate(leaf.shape):
                seen[(leaf.path, i)].add(d)
    return {k for k, v in seen.items() if len(v) > 1}


class _Keys:
    """Normalised cache keys of one function's compiles under a set of fixes."""

    def __init__(self, events: Sequence[CompileEvent], traceable: set[str]) -> None:
        self.events = list(events)
        self.traceable = traceable  # static names a traced argument could replace
        self.varying = varying_axes(self.events)
        paths = [{leaf.path for leaf in e.signature.leaves} for e in self.events if e.signature]
        self.common_paths = set.intersection(*paths) if paths else set()

    def key(self, e: CompileEvent, fixes: frozenset[str]) -> tuple:
        s = e.signature
        if s is None:
            return ("unknown", e.index)
        leaves = []
        for leaf in s.leaves:
            if "pytree_change" in fixes and leaf.path not in self.common_paths:
                continue
            shape = tuple(_next_pow2(d) if "shape_change" in fixes and (leaf.path, i) in self.varying else d
                          for i, d in enumerate(leaf.shape))
            leaves.append((leaf.path, shape,
                           None if "dtype_change" in fixes else leaf.dtype,
                           None if "weak_type_change" in fixes else leaf.weak_type,
                           None if "sharding_change" in fixes else leaf.sharding))
        static = []
        for k, v in sorted(s.static.items()):
            if "static_value_change" in fixes and k in self.traceable:
                continue
            if "static_unhashable" in fixes and is_identity_hashed(v):
                v = v.split(" object at ")[0]  # equal by value once the class defines __eq__/__hash__
            static.append((k, v))
        tree = None if "pytree_change" in fixes else s.treedef
        return (tuple(leaves), tuple(static), tree, e.transform)

    def groups(self, fixes: frozenset[str]) -> list[list[int]]:
        """Positions of the compiles that would be one program each, in compile order."""
        parent = list(range(len(self.events)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        first: dict[tuple, int] = {}
        for i, e in enumerate(self.events):
            k = self.key(e, fixes)
            ids: list[tuple] = [("object", e.function_id, jit_options(e), k)]
            if "new_function_object" in fixes and e.call_site is not None:
                # Same site, same bindings: the same function rebuilt. Different bindings (one partial per
                # test parameter) are different functions; "create it once" would not merge them.
                ids.append(("site", e.call_site.file, e.call_site.line, identity_bindings(e.bindings), jit_options(e), k))
            for ident in ids:
                j = first.setdefault(ident, i)
                if j != i:
                    parent[find(i)] = find(j)
        out: dict[int, list[int]] = defaultdict(list)
        for i in range(len(self.events)):
            out[find(i)].append(i)
        return list(out.values())

    def removed(self, fixes: Iterable[str]) -> list[CompileEvent]:
        """The compiles the fixes remove: the first of a group before the fixes that is no longer
        first after them (compiles of one program already, e.g. after a cache clear, are not the
        fixes' doing)."""
        def firsts(fx: frozenset[str]) -> set[int]:
            return {g[0] for g in self.groups(fx)}

        gone = firsts(frozenset()) - firsts(frozenset(fixes))
        return [e for i, e in enumerate(self.events) if i in gone]


def by_function(events: Sequence[CompileEvent], expected: dict[tuple, set[str]] | None = None,
                key: Callable[[CompileEvent], tuple] = function_key) -> dict[tuple, _Keys]:
    """One key normaliser per function (``key``: how events are grouped, ``function_key`` by default);
    ``expected`` maps a group's key to static names that set a shape (never traceable)."""
    groups: dict[tuple, list[CompileEvent]] = defaultdict(list)
    for e in events:
        groups[key(e)].append(e)
    return {k: _Keys(evs, numeric_statics(evs) - (expected or {}).get(k, set())) for k, evs in groups.items()}


def total_removed(keys: dict[tuple, _Keys], fixes: dict[tuple, set[str]]) -> list[CompileEvent]:
    """The compiles removed with every fix in ``fixes`` (function key -> categories) applied at once."""
    out: list[CompileEvent] = []
    for k, cats in fixes.items():
        if k in keys and cats:
            out += keys[k].removed(cats)
    return out
