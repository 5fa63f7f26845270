"""Why a compile missed JAX's persistent cache in run B when it hit (or was written) in run A: the
cache-key component(s) that changed, with A's and B's values where watch recorded them.

Pure functions over two runs' ``CompileEvent`` records (their ``persistent_cache``). Functions are
matched as ``run_diff`` matches them; within a function, B's compile is paired with A's compile of the
same argument signature and transform (in order), else with A's compile in the same position. Each
component is compared by its hash (what JAX keys on); its value only phrases the change. When every
recorded component is the same yet B missed, the entry was not in B's cache (another directory,
evicted, or never written there): said so, not guessed further.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .._serde import Record
from ..model import CACHE_KEY_COMPONENTS, CompileEvent, Location
from .run_identity import FunctionMatch, match_functions  # the same function matching as the rest of the diff


@dataclass
class ComponentChange(Record):
    """One cache-key component whose hash differs between the paired compiles."""

    name: str  # JAX's name: "computation", "XLA flags", "accelerator_config", ...
    value_a: str | None = None
    value_b: str | None = None
    added: list[str] = field(default_factory=list)  # XLA flags only: in B's key, not A's
    removed: list[str] = field(default_factory=list)

    def text(self) -> str:
        """``XLA flags: --xla_foo=true added``; ``accelerator_config: 1 cpu device -> 8 cpu devices``."""
        if self.name == "computation":
            return "computation"  # the program itself: the programs analysis says where it differs
        if self.added or self.removed:
            parts = [f"{f} added" for f in self.added] + [f"{f} removed" for f in self.removed]
            return f"{self.name}: {', '.join(parts)}"
        if self.value_a is not None and self.value_b is not None and self.value_a != self.value_b:
            return f"{self.name}: {self.value_a} -> {self.value_b}"
        return f"{self.name} changed"


@dataclass
class CacheMissCause(Record):
    """A compile that missed the persistent cache in B, though its counterpart in A hit or was written."""

    function: str
    definition: Location | None = None
    index_a: int = 0  # the paired compiles' indexes in their runs
    index_b: int = 0
    outcome_a: str = "hit"  # "hit" or "written"
    seconds_b: float = 0.0  # what the miss cost B: its backend compile
    changed: list[ComponentChange] = field(default_factory=list)  # in JAX's component order
    # "changed": components named; "same_key": every recorded component equal (the entry was not in B's
    # cache); "unrecorded": A or B has no key components (an older JAX, or a file older than the field)
    verdict: str = "changed"
    summary: str = ""  # the sentence console and HTML show

    def describe(self) -> str:
        """The cause in words: the changed components, or what the verdict means."""
        if self.verdict == "changed":
            names = {c.name for c in self.changed}
            return "; ".join(c.text() + (" (XLA_FLAGS also set the compile options' debug options)"
                                         if c.name == "compile_options" and "XLA flags" in names
                                         and c.value_a == c.value_b else "")
                             for c in self.changed)
        if self.verdict == "same_key":
            return ("same key components: the entry was not in B's cache (another cache directory, evicted, "
                    "or B's run could not read it)")
        return "key components not recorded in both runs (older JAX or file): cannot say which changed"


def _pair(ea: Sequence[CompileEvent], eb: Sequence[CompileEvent]) -> list[tuple[CompileEvent, CompileEvent]]:
    """B's compiles with their counterparts in A: same signature and transform first, then by position."""
    def key(e: CompileEvent) -> tuple[str, str | None]:
        return (e.signature.short() if e.signature else "", e.transform)

    left = list(ea)
    pairs: list[tuple[CompileEvent, CompileEvent]] = []
    unpaired: list[CompileEvent] = []
    for b in eb:
        a = next((a for a in left if key(a) == key(b)), None)
        if a is None:
            unpaired.append(b)
            continue
        left.remove(a)
        pairs.append((a, b))
    pairs += list(zip(left, unpaired))
    return pairs


def _flags(value: str | None) -> set[str]:
    return set() if value in (None, "none") else set(value.split())  # type: ignore[union-attr]


def component_changes(a: CompileEvent, b: CompileEvent) -> list[ComponentChange] | None:
    """The components whose hashes differ between two compiles, in JAX's order; None if either lacks them."""
    ra, rb = a.persistent_cache, b.persistent_cache
    if ra is None or rb is None or not ra.components or not rb.components:
        return None
    out = []
    names = [n for n in CACHE_KEY_COMPONENTS if ra.component(n) or rb.component(n)]
    names += [c.name for c in rb.components if c.name not in names]  # a component a newer JAX adds
    for name in names:
        ca, cb = ra.component(name), rb.component(name)
        if ca is not None and cb is not None and ca.hash == cb.hash:
            continue
        change = ComponentChange(name, ca.value if ca else None, cb.value if cb else None)
        if name == "XLA flags" and ca is not None and cb is not None and ca.value is not None and cb.value is not None:
            change.added = sorted(_flags(cb.value) - _flags(ca.value))
            change.removed = sorted(_flags(ca.value) - _flags(cb.value))
        out.append(change)
    return out


def cache_miss_causes(a: Sequence[CompileEvent], b: Sequence[CompileEvent],
                      matches: Sequence[FunctionMatch] | None = None) -> list[CacheMissCause]:
    """For each persistent-cache miss in ``b`` whose paired compile in ``a`` hit or was written: why.

    ``matches``: the functions paired across the runs (``run_identity.match_functions``), if known."""
    if matches is None:
        matches = match_functions(a, b)[0]
    out = []
    for m in matches:
        if not m.a or not m.b:
            continue
        for ea, eb in _pair(m.a, m.b):
            ra, rb = ea.persistent_cache, eb.persistent_cache
            if rb is None or not rb.enabled or rb.outcome != "miss" or ra is None or not ra.enabled:
                continue
            if not (ra.outcome == "hit" or ra.written):
                continue
            changes = component_changes(ea, eb)
            verdict = "unrecorded" if changes is None else ("changed" if changes else "same_key")
            cause = CacheMissCause(function=eb.function, definition=eb.definition, index_a=ea.index,
                                   index_b=eb.index, outcome_a="hit" if ra.outcome == "hit" else "written",
                                   seconds_b=eb.phases.get("compile", 0.0), changed=changes or [], verdict=verdict)
            cause.summary = cause.describe()
            out.append(cause)
    out.sort(key=lambda c: (-c.seconds_b, c.function, c.index_b))
    return out
