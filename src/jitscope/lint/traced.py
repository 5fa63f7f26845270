"""The call graph across modules: calls from traced code in one linted file to functions in another.

Each file's lint leaves ``OutgoingCall`` records (``lint/callgraph.py``): ``from .util import
helper`` then ``helper(x)`` inside a jitted step, ``layers.dense(x)``, ``jax.vmap(ops.f)``, a
method of an imported base class. Here the linted files get their module names from the
package they belong to (the directories with an ``__init__.py`` above them), each record is
resolved to the file and function it names, and that file is linted again for those functions
only (as traced, with the parameters the call passes traced), which may reach further modules.
Only files given to the run are followed: a call into an installed library stops there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import lru_cache

from .callgraph import OutgoingCall
from .reach import merge

MAX_ROUNDS = 6


@lru_cache(maxsize=4096)
def _is_package(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py"))


def module_name(path: str) -> str:
    """Dotted module name of ``path`` inside its package (``pkg/sub/mod.py`` -> ``pkg.sub.mod``)."""
    p = os.path.abspath(path)
    stem = _stem(os.path.basename(p))
    parts = [] if stem == "__init__" else [stem]
    d = os.path.dirname(p)
    while _is_package(d) and os.path.dirname(d) != d:
        parts.insert(0, os.path.basename(d))
        d = os.path.dirname(d)
    return ".".join(parts)


def _stem(name: str) -> str:
    """``PurePath(name).stem``: the name without its last suffix (a suffix is a dot not first, not last)."""
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


class ModuleMap:
    """Linted files by module name; resolves a call's target to (file, name inside the module)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_module: dict[str, str] = {}
        self.of_path: dict[str, str] = {}
        for path in paths:
            if path.endswith(".py"):
                name = module_name(path)
                self.by_module.setdefault(name, path)
                self.of_path[path] = name

    def resolve(self, caller: str, call: OutgoingCall) -> tuple[str, str] | None:
        return self.resolve_name(caller, call.target, call.level)

    def resolve_name(self, caller: str, target: str, level: int) -> tuple[str, str] | None:
        """(file, name inside it) of ``target`` as seen from ``caller`` (``level``: relative import level;
        -1: ``caller``'s own module)."""
        if level < 0:
            return caller, target
        call = OutgoingCall(target, level)
        if call.level:
            mod = self.of_path.get(caller, "")
            package = mod.split(".") if caller.endswith("__init__.py") else mod.split(".")[:-1]
            if call.level - 1 > len(package):
                return None
            package = package[:len(package) - (call.level - 1)]
            target = ".".join([*package, target])
        parts = target.split(".")
        for k in range(len(parts) - 1, 0, -1):
            path = self.by_module.get(".".join(parts[:k]))
            if path is not None:
                return path, ".".join(parts[k:])
        return None


def _subclasses(modules: ModuleMap, classes: dict[str, list[tuple]]
                ) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(file, class) -> its direct subclasses (file, class) among the linted files."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path, entries in classes.items():
        for name, bases, *_ in entries:
            for level, dotted in bases:
                hit = modules.resolve_name(path, dotted, level)
                if hit is not None:
                    out.setdefault(hit, []).append((path, name))
    return out


def follow_across(outgoing: dict[str, list[OutgoingCall]], paths: list[str], lint_incoming,
                  classes: dict[str, list[tuple]] | None = None) -> Iterator[object]:
    """Lint again, round by round, the files whose functions calls in ``outgoing`` (caller path -> calls) reach.

    Every call reaching one function is merged into one record (``reach.merge``) before its file is
    linted again, and a file is linted again whole (``lint_incoming(path, [(name, call), ...])`` returns
    ``(outcome, new outgoing calls)``): each yielded outcome replaces everything reported for its file
    before, so a function reached from several files, or from its own module and another, is
    reported once, with the facts of every way it is reached. ``classes`` (path -> classes and
    their bases) lets a ``self.m`` call in a base class reach the overriding ``m`` of a subclass
    in another file.
    """
    if not any(outgoing.values()):
        return
    modules = ModuleMap(paths)
    subclasses: dict[tuple[str, str], list[tuple[str, str]]] | None = None
    defined = {(path, entry[0]): entry[2] for path, entries in (classes or {}).items() for entry in entries
               if len(entry) > 2}
    incoming: dict[str, dict[str, OutgoingCall]] = {}
    rounds = 0
    while outgoing and rounds < MAX_ROUNDS:
        rounds += 1
        changed: dict[str, None] = {}
        for caller in sorted(outgoing):
            for call in outgoing[caller]:
                hits: list[tuple[str, str]] = []
                if call.virtual:
                    if subclasses is None:
                        subclasses = _subclasses(modules, classes or {})
                    cls, _, method = call.target.rpartition(".")
                    stack, seen = [(caller, cls)], set()
                    while stack:
                        key = stack.pop()
                        for sub in subclasses.get(key, ()):
                            if sub not in seen:
                                seen.add(sub)
                                if call.via_method and call.via_method in defined.get(sub, ()):
                                    continue  # it overrides the calling method: this call never runs on it
                                stack.append(sub)
                                if sub[0] != caller:
                                    hits.append((sub[0], f"{sub[1]}.{method}"))
                else:
                    hit = modules.resolve(caller, call)
                    if hit is not None and hit[0] != caller:  # this module's own calls were followed already
                        hits.append(hit)
                for path, name in hits:
                    calls = incoming.setdefault(path, {})
                    prev = calls.get(name)
                    # Called from another module: other importers may call it too (never a closed world).
                    new = replace(call, closed=False) if prev is None else merge(prev, replace(call, closed=False))
                    if new != prev:
                        calls[name] = new
                        changed[path] = None
        outgoing = {}
        for path in changed:
            outcome, more = lint_incoming(path, sorted(incoming[path].items()))
            if outcome is not None:
                yield outcome
            if more:
                outgoing[path] = more
