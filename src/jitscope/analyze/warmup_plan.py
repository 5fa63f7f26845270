"""Which compiles of a watch run a warm-up can redo ahead of time, and how (issues #15 item 5, #26 item 1).

``jitscope warmup RUN.json`` turns each observed jit call into one entry of the warm-up: the jitted object
the program called, by module and attribute path (``__main__.train_step._cached``: equinox's inner
``jax.jit``), and its arguments exactly as JAX saw them, as values (custom pytrees through their node types
and aux data, arrays as ``jax.ShapeDtypeStruct`` specs, static values as literals, value objects or objects
read by name). The watch recorded each call that way while the call's objects were alive, and rebuilt it
there to check that it comes back equal (``collect/warmup_record.py``); a call that did not carries ``why``.
An ahead-of-time ``fn.lower(*args, **kwargs).compile()`` of such an entry, run in the program's process,
fills the in-memory caches the program's own call then hits (docs/warmup.md, measured).

It never guesses: every compile that has no exact entry is listed in ``skipped`` with the reason (the
recorder's ``why``; a compile under ``grad``/``vmap``; a run recorded before calls were recorded as values),
and left out. A run is a file anyone can edit, so every record is read again here
(``warmup_values.from_record``): what reaches the script is checked Python literals only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..jaxmodel.known import call_contexts
from ..model import CompileEvent
from .pytree_summary import summarise
from .warmup_values import NotRebuildable, dotted_name, from_record, identifier

_X64 = {"float64", "int64", "uint64", "complex128"}


@dataclass
class WarmupCall:
    """One ahead-of-time compile: ``module.path.lower(*args, **kwargs).compile()``.

    ``args``/``kwargs`` are value records in the runtime's tuple form (``_warmup_runtime.rebuild``), made of
    literals only; ``module`` is a dotted name and every part of ``path`` and every keyword an identifier
    (checked). ``function`` is the user's function as watch named it (shown, never looked up). ``file`` is
    the module's file and ``root`` the ``sys.path`` entry it imports from (the script's directory for a
    program's ``__main__``). ``compiles``/``seconds``: what this call cost in the recorded run.
    """

    module: str
    path: list[str]
    function: str
    file: str
    root: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    signature: str = ""
    x64: bool = False  # a 64-bit argument: the program ran with jax_enable_x64
    compiles: int = 1
    seconds: float = 0.0
    # the library context manager the inner jit call runs in, entered with the wrapper object at path[:-1]
    # (``jaxmodel`` CallContext: nnx.jit's ``update_context``); None for most
    context: str | None = None

    @property
    def main(self) -> bool:
        """Defined in the program run as ``__main__`` (warmed in the program's process, at its main guard)."""
        return self.module == "__main__"


@dataclass
class SkippedCompile:
    """A function (or one of its signatures) the script does not warm up, and why."""

    function: str
    reason: str
    module: str | None = None
    where: str = ""  # the definition, file:line
    signatures: list[str] = field(default_factory=list)  # summarised, one per distinct signature
    compiles: int = 1
    seconds: float = 0.0


@dataclass
class WarmupPlan:
    """What a warm-up compiles (``calls``) and what it lists as not covered (``skipped``)."""

    calls: list[WarmupCall] = field(default_factory=list)
    skipped: list[SkippedCompile] = field(default_factory=list)
    compiles: int = 0  # compiles in the run (each call and skip counts those it stands for)

    @property
    def covered(self) -> int:
        """Compiles of the run whose call the warm-up compiles ahead of time."""
        return sum(c.compiles for c in self.calls)

    @property
    def functions(self) -> tuple[int, int]:
        """(functions with at least one entry, functions the run compiled), by definition site."""
        seen = {_function_key(c.function, c.file, c.module) for c in self.calls}
        left = {_function_key(s.function, s.where.rpartition(":")[0], s.module) for s in self.skipped}
        return len(seen), len(seen | left)


def _function_key(function: str, file: str, module: str | None) -> tuple:
    return (function, os.path.abspath(file) if file else "", module or "")


class _NotExact(Exception):
    """Why a compile cannot be redone exactly (the message is the reason shown to the user)."""


def plan(events: Sequence[CompileEvent]) -> WarmupPlan:
    """The warm-up plan for a run's compile events: one call per distinct jit call, the rest skipped."""
    calls: dict[tuple, WarmupCall] = {}
    skipped: dict[tuple, SkippedCompile] = {}
    for e in events:
        where = f"{e.definition.file}:{e.definition.line}" if e.definition else ""
        sig = summarise(e.signature)  # pytrees by structure, as every report shows a call
        try:
            call = _call_for(e, sig)
        except _NotExact as why:
            key = (e.function, where, str(why))
            if key in skipped:
                s = skipped[key]
                s.compiles += 1
                s.seconds += e.total_seconds
                if sig and sig not in s.signatures:
                    s.signatures.append(sig)
            else:
                skipped[key] = SkippedCompile(e.function, str(why), e.module, where, [sig] if sig else [], 1,
                                              e.total_seconds)
            continue
        key = (call.module, tuple(call.path), repr(call.args), repr(sorted(call.kwargs.items())))
        if key in calls:
            calls[key].compiles += 1  # the run compiled this call again (a cleared or evicted cache)
            calls[key].seconds += e.total_seconds
        else:
            calls[key] = call
    return WarmupPlan(list(calls.values()), list(skipped.values()), len(events))


def _call_for(e: CompileEvent, sig: str) -> WarmupCall:
    if e.transform:
        raise _NotExact(f"compiled under {_short(e.transform)}: that is another program than the function's own call")
    r = _record(e.rebuild)
    if r.get("why"):
        raise _NotExact(_short(str(r["why"]), 300))
    try:
        module = dotted_name(r.get("module"))
        path = r.get("path")
        if not isinstance(path, list) or not 1 <= len(path) <= 4:
            raise NotRebuildable("its attribute path is not a list of names")
        path = [identifier(p, "attribute") for p in path]
        args, kwargs = r.get("args"), r.get("kwargs")
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise NotRebuildable("its arguments are not recorded as a list and a dict")
        args = [from_record(a) for a in args]
        kwargs = {identifier(k, "keyword"): from_record(v) for k, v in kwargs.items()}
    except NotRebuildable as why:
        raise _NotExact(f"its record cannot be read back: {why}") from None
    context = r.get("context")
    if context is not None and (context not in call_contexts() or len(path) < 2):
        raise _NotExact(f"its call context {_short(repr(context))} is not one jitscope knows a wrapper to need")
    file = r.get("file")
    file = file if isinstance(file, str) and file.endswith(".py") else ""
    if module == "__main__":
        root = os.path.dirname(os.path.abspath(file)) if file else ""
    else:
        found = _import_root(file, module)
        if found is None:
            raise _NotExact(f"its file {_short(repr(file)) if file else '(unknown)'} is not where module {module} "
                            "would be imported from")
        root = found
    x64 = any(_arrays_of(a, lambda spec: spec[2] in _X64) for a in [*args, *kwargs.values()])
    return WarmupCall(module, path, e.function, file, root, args, kwargs, sig, x64, 1, e.total_seconds, context)


def _record(text: str | None) -> dict[str, Any]:
    """An event's rebuild record (JSON text), parsed; ``_NotExact`` when absent or not a JSON object."""
    import json

    if text is None:
        raise _NotExact("the run does not record the call as values (recorded by an older jitscope): re-record it")
    try:
        r = json.loads(text) if isinstance(text, str) and len(text) <= 50_000_000 else None
    except (ValueError, RecursionError):
        r = None
    if not isinstance(r, dict):
        raise _NotExact("its rebuild record is not a JSON object")
    return r


def _arrays_of(record: Any, test: Any) -> bool:
    """Whether any array record inside ``record`` passes ``test``."""
    if isinstance(record, tuple) and record and record[0] == "array":
        return bool(test(record))
    if isinstance(record, tuple) and record and record[0] == "literal":
        return False
    if isinstance(record, tuple):
        return any(_arrays_of(x, test) for x in record)
    return False


def _import_root(file: str, module: str) -> str | None:
    """The ``sys.path`` entry from which ``import module`` loads ``file`` (None: it would not)."""
    parts = module.split(".")
    if not file.endswith(".py") or not all(p.isidentifier() for p in parts):
        return None
    path = os.path.abspath(file)[:-3]
    if os.path.basename(path) == "__init__":
        path = os.path.dirname(path)
    for part in reversed(parts):
        if os.path.basename(path) != part:
            return None
        path = os.path.dirname(path)
    return path


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
