"""Duplicate compiles (JW403, JW404): one function compiled again into a program it already had, or into
one that differs only in literal constants.

Input: the compile events of a run, with the fingerprints the collector filled
(``CompileEvent.fingerprint`` and ``constants_blind_fingerprint``, from the normalised StableHLO:
``collect/program_text.py``), and the run's program table for the constants' values (any mapping
fingerprint -> object with ``constants``: a list of short values, ``"0.01 : f32"``). Pure: the same
function runs live (``DuplicateTracker.observe``, called by the runtime analyzer at each compile) and
over a saved run (``duplicate_findings``, for ``jitscope diff``).

"Same function" is ``reasons.function_key`` (name and definition) under the same transformation, and
compiles are paired only where one user action could merge them (``advice_scope.py``): within one
test under pytest, one jitted object or one call site, the same jit options, and never a compile that
a library both defines and calls.

* JW403 duplicate-compile: the fingerprint equals an earlier compile's. JAX's jit cache key holds more
  than the program: the finding names what differed in it, from the two calls' signatures (weak type,
  committed vs uncommitted or another sharding object, the pytree container, a static value the program
  ignores, arguments passed by keyword vs by position, an unread argument left out) or the function object
  (a new object with equal bindings: the same function rebuilt); every difference found is named. "Create it
  once" is advice only where one function object would have hit jit's cache: the two objects bind equal values
  (a closure over another class per test case is another function: not paired) and the arguments' signatures
  agree (a pytree class that changed is named instead; an earlier compile whose signature agrees is paired
  first, and its fix is the finding's). A function in a node's static field cannot be made a leaf: the fix is one function object. Compiles
  under different trace contexts or checking modes (``jax.checking_leaks``) are not paired. An eager
  ``lax.cond``/``while_loop``/``scan`` (attributed to the primitive by ``collect/programs.py``) is keyed on
  its bodies' traces: closures defined per call compile again, and jitting the caller is the fix. Under pytest, a
  variation the running test's own code passed (``advice_scope.chosen_by_test``) is the test's subject, not paired
  (``_tests_variation``). When
  nothing differed, the cache was cleared or evicted. The second compile's seconds were wasted.
* JW404 constant-recompile: the constants-blind fingerprints are equal, the fingerprints not: the
  programs differ only in the values of literal constants, named (``0.1 -> 0.01 : f32``). Passing the
  value as a traced argument (``optax.inject_hyperparams`` for an optimizer's hyperparameter) makes
  one program serve every value.

Not reported: a compile whose arguments are committed to other devices than the earlier compile's
(both committed, different shardings): an executable is built for its devices, so it was needed.

Severity is ``warning``: the programs are equal after normalisation (digests of texts, not a proof
that XLA's output is byte-identical), and a program compiled again can be a deliberate trade.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .._format import fmt_seconds
from ..jaxmodel import fixes
from ..model import ArgSignature, CompileEvent, Fix, has_identity_members, identity_bindings
from .advice_scope import chosen_by_test, library_defined, library_internal, mergeable, scope_key
from .reasons import function_key, keyword_change, signature_diffs
from .recompile_patterns import same_context
from .runtime_record import RuntimeFinding
from .runtime_record import source_line as _source

__all__ = ["DuplicateTracker", "constant_changes", "duplicate_findings"]


class ProgramConstants(Protocol):
    """What this module needs of a program table entry (``collect.program_text.ProgramText``)."""

    constants: list[str]


_KEY_FIXES = {  # signature_diffs category -> (what differed, fix title, why)
    "weak_type_change": ("weak type", "pass the argument with one type every time",
                         "A Python scalar is weakly typed and an array is not: jit keys its cache on the weak "
                         "type even where the compiled program is the same; convert once (jnp.asarray(x, "
                         "jnp.float32)) or always pass Python scalars."),
    "sharding_change": ("sharding", "place the argument the same way every time",
                        "Jit keys its cache on whether an array is committed to a device and on its sharding "
                        "object; one device_put (or none) for every call gives one cache entry."),
    "pytree_change": ("pytree container", "pass the same container type every time",
                      "Jit keys its cache on the pytree structure (a tuple vs a list, a dict's keys)."),
    "static_value_change": ("static value", fixes.static_value_ignored("the argument").title,  # jax.jit's words:
                            fixes.static_value_ignored("the argument").why),  # _wrapper_fix rephrases for others
    "static_unhashable": ("static value", "pass a hashable static value that compares equal",
                          "An object hashed by identity is a new cache entry each time."),
    # The same program for two shapes (or dtypes) of an argument: jit prunes arguments the program does not
    # read (keep_unused=False), so the argument is unread, yet jit keys its cache on its shape and dtype.
    "shape_change": ("the shape of an argument the program does not read",
                     "drop the argument the program does not read, or pass it with one shape",
                     "The two programs are the same, so the program does not read this argument (jit leaves "
                     "unread arguments out of the program); jit still keys its cache on its shape."),
    "dtype_change": ("the dtype of an argument the program does not read",
                     "drop the argument the program does not read, or pass it with one dtype",
                     "The two programs are the same, so the program does not read this argument (jit leaves "
                     "unread arguments out of the program); jit still keys its cache on its dtype."),
}
_NEW_OBJECT = ("a new function object", fixes.CREATE_ONCE.title, fixes.CREATE_ONCE.why)
_CLEARED = ("nothing (same function, same signature)", "keep JAX's cache: avoid jax.clear_caches() and "
            "keep the jitted function alive", "The program was compiled before in this run and its "
            "cache entry was gone: cleared, evicted, or a config or context change.")
_KEYWORDS = ("arguments passed by keyword in one call and by position in the other",
             "pass each argument the same way (by position or by keyword) every call",
             "Jit keys its cache on which arguments come by keyword: f(x, y) and f(x=x, y=y) are two cache "
             "entries, each compiled, for the same program.")
_ABSENT = ("an argument passed in one call and left out in the other (the program does not read it)",
           "pass the argument the same way every call, or drop it",
           "Jit keys its cache on the arguments' tree structure, and an argument left to its default is not "
           "in it; the program is the same, since it does not read the argument.")
# Eager control flow (``collect/programs.py`` attributes it to the primitive, with ``bodies: ...`` bindings):
# JAX compiles the primitive on its own, keyed on the jaxprs of its bodies, and traces a body again when it
# is a new function object: closures defined inside the caller are new at each call.
_PRIMITIVE_NAMES = {"cond": "lax.cond", "while": "lax.while_loop", "scan": "lax.scan"}
_EAGER = ("{p} called outside jit (its {bodies} traced again at each call)",
          "jit the function that calls {p}",
          "Outside jit, {p} is compiled on its own, keyed on the traces of its {bodies}; a {body} defined "
          "inside the calling function (a closure) is a new function at each call, so it is traced and "
          "compiled again into the same program. Inside a jitted function it is part of that function's "
          "program, compiled once per signature.")


_EAGER_TAIL = "traced again at each call)"
_BAKED = ("pass the value as a traced argument",
          "A Python number captured by the jitted function (a closure, a global, a static argument) is baked "
          "into the program as a constant, so each value compiles a new program; as an argument, one program "
          "serves every value. For an optax optimizer's hyperparameter (a learning rate in a sweep or a "
          "schedule) wrap it in optax.inject_hyperparams.")


def constant_changes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, str]]:
    """The constants that differ between two programs with equal constants-blind text: (A's, B's)."""
    out = [(x, y) for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        out.append((f"{len(a)} constants", f"{len(b)} constants"))
    return out


def _plain(value: str) -> str:
    return value.rpartition(" : ")[0] or value


def _eager_primitive(event: CompileEvent) -> bool:
    """An eager ``lax.cond``/``while_loop``/``scan`` program (not the user's own jitted function)."""
    return event.function_id is None and (event.bindings or "").startswith("bodies: ")


def _eager_cause(event: CompileEvent) -> tuple[str, str, str]:
    p = _PRIMITIVE_NAMES.get(event.function, f"lax.{event.function}")
    bodies, body = ("branch functions", "branch") if event.function == "cond" else ("body functions", "body")
    return tuple(t.format(p=p, bodies=bodies, body=body) for t in _EAGER)  # type: ignore[return-value]


def _causes(old: ArgSignature, new: ArgSignature) -> list[tuple[str, str, str, list[str]]]:
    """Each difference in jit's cache key between two calls' signatures: (what, fix title, why, details)."""
    diffs = signature_diffs(old, new)
    out = []
    kw = keyword_change(old, new)
    if kw is not None:
        out.append((*_KEYWORDS, [kw]))
    # A node's static data (an eqx.field(static=True), a flax struct field with pytree_node=False, aux data) is
    # not its container: the program is the same, so the value is not needed at compile time.
    static_data = [d for d in diffs.get("pytree_change", ()) if "): static data " in d]
    functions = [d for d in static_data if _function_static_data(old, new, d)]
    if functions:  # a function cannot be a leaf: the fix is one function object, not "make it a leaf"
        out.append(("a function in a static field of a pytree node (a new function object: functions compare by "
                    "identity)", fixes.STATIC_FUNCTION_FIELD.title, fixes.STATIC_FUNCTION_FIELD.why, functions))
    rest = [d for d in static_data if d not in functions]
    if rest:
        out.append(("a static field of a pytree node (its static data)", fixes.STATIC_FIELD_IGNORED.title,
                    fixes.STATIC_FIELD_IGNORED.why, rest))
    if static_data:
        diffs["pytree_change"] = [d for d in diffs["pytree_change"] if d not in static_data]
        if not diffs["pytree_change"]:
            diffs.pop("pytree_change")
    absent = [d for d in diffs.get("pytree_change", ()) if d.endswith("-> (absent)") or ": (absent) ->" in d]
    if absent and len(absent) == len(diffs["pytree_change"]):
        out.append((*_ABSENT, absent))
        diffs.pop("pytree_change")
    members = [d for d in diffs.get("static_unhashable", ()) if has_identity_members(d.rsplit(" -> ", 1)[-1])]
    if members:  # a tuple of functions: no __eq__ makes rebuilt closures equal; build it once
        out.append(("a static value rebuilt (its functions hash by identity)", fixes.REUSE_STATIC_OBJECT.title,
                    fixes.REUSE_STATIC_OBJECT.why, members))
        diffs["static_unhashable"] = [d for d in diffs["static_unhashable"] if d not in members]
        if not diffs["static_unhashable"]:
            diffs.pop("static_unhashable")
    for cat, (what, title, why) in _KEY_FIXES.items():
        if cat in diffs:
            out.append((what, title, why, diffs.pop(cat)))
    for cat, lines in diffs.items():
        out.append((cat.replace("_", " "), "keep the argument the same every call", "", lines))
    # An argument of another pytree class (``k: _JitWrapper -> _GradWrapper``, one class per test case) is the
    # difference every other one follows from: named, and its fix given, first.
    out.sort(key=lambda c: 0 if c[0] == "pytree container" and any(_CLASS_CHANGE.match(d) for d in c[3]) else 1)
    return out


_CLASS_CHANGE = re.compile(r"\S+: (?!keys )[A-Za-z_][\w.]* -> [A-Za-z_][\w.]*$")  # reasons.node_changes' wording


_FUNCTION_REPR = re.compile(r"<(?:function|bound method|built-in function|cyfunction) .*? at 0x[0-9a-f]+>")


def _function_static_data(old: ArgSignature, new: ArgSignature, line: str) -> bool:
    """The static data named in ``line`` (``path (Kind): static data ...``) holds functions and differs only in
    which function objects it holds (their reprs with addresses blanked are equal)."""
    path = line.partition(" (")[0]
    a, b = old.nodes.get(path), new.nodes.get(path)
    if not a or not b or not _FUNCTION_REPR.search(a):
        return False
    blank = lambda t: _FUNCTION_REPR.sub(lambda m: m.group(0).rsplit(" at 0x", 1)[0], t)  # noqa: E731
    return blank(a) == blank(b)


def _wrapper(event: CompileEvent) -> str:
    # ``CompileEvent.wrapper`` (equinox.filter_jit, ...) where the capture engine records it; jax.jit otherwise.
    return getattr(event, "wrapper", None) or "jax.jit"


_SHOWN_BINDINGS = 160  # characters


def _key_difference(old: CompileEvent, new: CompileEvent) -> tuple[str, str, str, list[str]]:
    """(what differed in jit's cache key, fix title, why, details) for two compiles of one function.

    Every difference found is named (a weak type and a new placement of one argument both need fixing for
    one cache entry); the fix is the first one's."""
    causes = _causes(old.signature, new.signature) if old.signature is not None and new.signature is not None \
        else []
    if _rebuilt(old, new) and not causes:
        what, title, why = _NEW_OBJECT
        same = old.bindings is not None and identity_bindings(old.bindings) == identity_bindings(new.bindings)
        # the bindings are shown when a reader can take them in (a closure's few cells); a wrapper's (grad of a
        # function JAX wrapped: its internal cells and messages) stay in the run's JSON
        shown = same and old.bindings and len(old.bindings) <= _SHOWN_BINDINGS
        return (what + (" (equal bindings: the same function rebuilt)" if same else ""), title, why,
                [f"bindings: {old.bindings}"] if shown else [])
    if _eager_primitive(new):
        what, title, why = _eager_cause(new)
        return what, title, why, [line for c in causes for line in c[3]]
    if causes:
        what = " and ".join(dict.fromkeys(c[0] for c in causes))
        title = causes[0][1]
        if title == _KEY_FIXES["static_value_change"][1]:  # phrased for the wrapper that compiled (no option it lacks)
            title = fixes.static_value_ignored("the argument", _wrapper(new)).title
        return what, title, causes[0][2], [line for c in causes for line in c[3]]
    if _explained_new_object(new):
        return _lost_function(new)
    return _CLEARED[0], _CLEARED[1], _CLEARED[2], []


def _rebuilt(old: CompileEvent, new: CompileEvent) -> bool:
    """Two function objects (a jit or closure built again)."""
    return old.function_id is not None and new.function_id is not None and old.function_id != new.function_id


def _rebound(old: CompileEvent, new: CompileEvent) -> bool:
    """Two function objects binding different values (a closure over another class or object, a partial of
    another argument, per case of a parametrized test): one object could not have served both calls, so "create
    it once" would not merge them, whatever the programs' texts."""
    return _rebuilt(old, new) and old.bindings is not None and new.bindings is not None and \
        identity_bindings(old.bindings) != identity_bindings(new.bindings)


# An object in a function's bindings (``watch_signature._bound_value``): ``<Env hashed by identity 7f...>``; a class
# is ``<class P hashed by identity 7f...>`` (two classes are two functions' worth of difference, never blanked).
_BOUND_OBJECT = re.compile(r"<([^\s<>]+) hashed by identity [0-9a-f]+((?: state=[0-9a-f]+)?)>")


def _per_object(old: CompileEvent, new: CompileEvent) -> str | None:
    """The class of the object two function objects of one definition bind, where they differ in nothing else: a
    bound method or a closure over ``self`` jitted per object (an environment's ``jax.jit(self.step)`` in
    ``__init__``). Their programs are equal, so what the objects hold did not reach the program: one jit of the
    method outside the object would have compiled once. None when the bindings differ otherwise."""
    if not _rebound(old, new):
        return None
    # the address blanked, the state digest (``collect/object_state.py``) kept: objects holding other values
    # are two functions' worth of difference
    blank = lambda t: _BOUND_OBJECT.sub(lambda m: f"<{m.group(1)}{m.group(2)}>", t)  # noqa: E731
    a, b = old.bindings or "", new.bindings or ""
    if blank(a) != blank(b):
        return None
    changed = [(x.group(1), x.group(2)) for x, y in zip(_BOUND_OBJECT.finditer(a), _BOUND_OBJECT.finditer(b))
               if x.group(0) != y.group(0)]
    # an object whose state could not be read (or a run recorded before states were) may hold other values: no
    # pairing; ``<type ...>``: a class, as runs recorded before classes were named: two classes, not two objects
    if not changed or any(not state or cls == "type" for cls, state in changed):
        return None
    return changed[0][0]


def _object_cause(cls: str, new: CompileEvent) -> tuple[str, str, str, list[str]]:
    """A new object per call: the user reuses the object where a library jits per object, else jits once outside."""
    fix = fixes.REUSE_OBJECT if library_defined(new) else fixes.JIT_PER_OBJECT
    how = "a bound method of it" if (new.bindings or "").startswith("self=") else "a closure over it"
    return (f"a new {cls} object per call (the jitted function is {how}, jitted per object; the program is the "
            "same)", fix.title, fix.why, [])


def _lost_function(new: CompileEvent) -> tuple[str, str, str, list[str]]:
    """Same function (equal bindings), same signature, and JAX's own explanation says it never saw the function:
    JAX's tracing cache is keyed on the function object and holds it weakly, so a jit built around a new object
    (a bound method ``obj.method`` is a new object at each access; a function defined in a loop) starts empty
    once the previous object is freed with its jit."""
    method = (new.bindings or "").startswith("self=")
    what = ("a new function object, a bound method (obj.method is a new object at each access; JAX's cache held "
            "the previous one weakly and it was freed)" if method else
            "a new function object (JAX's cache held the previous one weakly and it was freed)")
    title = ("create the jitted method once (step = jax.jit(obj.method) outside the loop) and reuse it" if method
             else fixes.CREATE_ONCE.title)
    lines = [line.strip() for line in (new.reason.explanation or "").splitlines()]
    at = next((i for i, line in enumerate(lines) if "never seen function" in line), None)
    seen = " ".join(lines[at:at + 2]).replace("function: ", "function ") if at is not None else ""
    return what, title, fixes.CREATE_ONCE.why, [f"JAX's explanation: {seen}"] if seen else []


def _library_static(old: CompileEvent, new: CompileEvent, any_cause: bool = False) -> bool:
    """A library's function recompiled for a static value (ignored by the program, or, ``any_cause``, baked
    into it as a constant): which arguments are static is the library's choice, nothing to change at the
    user's call (``advice_scope``)."""
    if not library_defined(new) or old.signature is None or new.signature is None:
        return False
    static = [c[1] == _KEY_FIXES["static_value_change"][1] for c in _causes(old.signature, new.signature)]
    return bool(static) and (any(static) if any_cause else all(static))


def _other_placement(old: CompileEvent, new: CompileEvent) -> bool:
    """True when an argument is committed to a different place in the two calls: an executable is built
    for its devices, so the second compile was needed even for the same program."""
    if old.signature is None or new.signature is None:
        return False
    before = {leaf.path: leaf.sharding for leaf in old.signature.leaves}
    return any(leaf.sharding is not None and before.get(leaf.path) is not None
               and before[leaf.path] != leaf.sharding for leaf in new.signature.leaves)


RECENT = 16  # earlier compiles of one program (or one constants-blind program) a new compile is paired with


class DuplicateTracker:
    """Compiles seen so far, by function: reports each new one that repeats or nearly repeats a program."""

    def __init__(self) -> None:
        # The RECENT most recent earlier compiles of each (function, advice scope) per program fingerprint and
        # per constants-blind fingerprint: a lookup, not a scan, so the 2,000th compile costs what the 100th does.
        self._by_program: dict[tuple, deque[tuple[CompileEvent, list[str] | None]]] = {}
        self._by_blind: dict[tuple, deque[tuple[CompileEvent, list[str] | None]]] = {}
        # per (function, scope): the last cause read from JAX's own explanation (a new function object): JAX
        # explains a function's first misses only (collect/monitoring.py), so a later identical repeat with no
        # explanation inherits it instead of being called a cleared cache
        self._explained: dict[tuple, tuple[str, str, str, list[str]]] = {}
        self._lock = threading.Lock()

    def observe(self, event: CompileEvent, constants: list[str] | None,
                context: Any = None, checks: Any = None) -> RuntimeFinding | None:
        """The JW403/JW404 finding for ``event`` (a finished compile) against the earlier ones, or None
        (the most recent earlier compile of the same program whose arguments' signature agrees, else the most
        recent of the same program, else of the same program but its constants). ``constants``: its program's
        literal constants (short values), None when unknown; ``context``: JAX's trace context it was traced
        under (``(names, values)``) and ``checks``: the checking modes on (``jaxmodel.deliberate.CHECK_MODES``), None
        when unknown: compiles under different contexts or checking modes are not paired."""
        if event.fingerprint is None:
            return None
        # a library's own compile (defined and called in installed packages) is paired with its like only, and only
        # for a new object per call: the object is the user's to reuse (``_per_object``)
        internal = library_internal(event)
        key = (function_key(event), *scope_key(event), internal)
        blind = event.constants_blind_fingerprint
        with self._lock:
            ctx = (context, checks)
            same = [(o, c) for o, c, x in self._by_program.get((*key, event.fingerprint), ()) if _same(x, ctx)]
            near = [(o, c) for o, c, x in self._by_blind.get((*key, blind), ()) if _same(x, ctx)] \
                if blind is not None else []
            entry = (event, constants, ctx)
            self._by_program.setdefault((*key, event.fingerprint), deque(maxlen=RECENT)).append(entry)
            if blind is not None:
                self._by_blind.setdefault((*key, blind), deque(maxlen=RECENT)).append(entry)
        # The same program: "create it once" or "pass one type" merges only one object's compiles, or two
        # objects' made at one call site (a jit rebuilt in a loop).
        # A rebuilt function binding other values is no duplicate one object would have merged; among the rest,
        # an earlier compile whose signature agrees is the one "create it once" would have hit.
        paired = [] if internal else \
            [old for old, _ in reversed(same) if mergeable(old, event) and not _rebound(old, event)]
        agreeing = [old for old in paired if old.signature is not None and event.signature is not None
                    and not _causes(old.signature, event.signature)]
        for old in (agreeing or paired)[:1]:
            if _other_placement(old, event) or _library_static(old, event) or _tests_variation(old, event):
                return None
            cause = _key_difference(old, event)
            if _explained_new_object(event):
                self._explained[key] = cause
            elif cause[0] == _CLEARED[0] and not _explanation(event) and key in self._explained:
                what, title, why, _ = self._explained[key]
                cause = (what, title, why, ["as in this function's earlier recompiles, which JAX explained "
                                            "(it explains only a function's first misses)"])
            return _identical(old, event, cause)
        # A new object per call (an environment's jax.jit(self.step) built in __init__, called by its own methods),
        # unless the running test's own line calls the per-object function: the test made an object per case and
        # jitted and called it itself (distrax's tests: a bijector per element), its subject.
        for old, _ in reversed(same):
            cls = _per_object(old, event) if mergeable(old, event) else None
            if cls is not None and old.signature is not None and event.signature is not None \
                    and not _causes(old.signature, event.signature) \
                    and not chosen_by_test(event):
                return _identical(old, event, _object_cause(cls, event))
        if internal:
            return None
        # Constants only: the fix is in the definition (the value as an argument), wherever it is called.
        for old, old_constants in reversed(near):
            if old.fingerprint != event.fingerprint:
                if _library_static(old, event, any_cause=True):
                    return None  # the constants are the library's static option, baked in by its choice
                return None if _other_placement(old, event) else _constants_only(old, event, old_constants, constants)
        return None


def _tests_variation(old: CompileEvent, new: CompileEvent) -> bool:
    """Under pytest, the test's own code passed both calls' arguments (``advice_scope.chosen_by_test``) and they
    differ in what a test varies on purpose: the test's subject, not a fix to make. A changed container, class,
    static value, function in a static field or argument left out; a weak type only where each variant also got
    a jit of its own (a Python scalar beside an array in one jitted object's calls is the loop-carry pitfall); an
    eager ``lax.cond``/``scan`` the test runs outside jit (tests compare eager and jitted runs)."""
    if not (chosen_by_test(old) and chosen_by_test(new)):
        return False
    if _eager_primitive(new):
        return True
    if old.signature is None or new.signature is None:
        return False
    causes = _causes(old.signature, new.signature)
    return bool(causes) and (_rebuilt(old, new) or any(c[0] != _KEY_FIXES["weak_type_change"][0] for c in causes))


def _same(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    """Two compiles' (trace context, checking modes) allow pairing: equal, or not known for one of them."""
    return same_context(a[0], b[0]) and (a[1] is None or b[1] is None or a[1] == b[1])


def _base(old: CompileEvent, event: CompileEvent) -> dict[str, Any]:
    return {"compile_index": event.index, "timestamp": event.timestamp, "seconds": event.total_seconds}


def _explanation(event: CompileEvent) -> str:
    return getattr(event.reason, "explanation", "") or ""


def _explained_new_object(event: CompileEvent) -> bool:
    return "never seen function" in _explanation(event)


def _identical(old: CompileEvent, event: CompileEvent,
               cause: tuple[str, str, str, list[str]] | None = None) -> RuntimeFinding:
    what, title, why, details = cause or _key_difference(old, event)
    detail = f" ({'; '.join(details)})" if details else ""
    loc = event.call_site or event.definition
    return RuntimeFinding(
        "JW403", event.function,
        f"compile #{event.index} of {event.function} built the same program as compile #{old.index}: "
        f"{fmt_seconds(event.total_seconds)} wasted; jit's cache key differed by {what}{detail}",
        "warning", loc, Fix(title, why, location=loc, saving_seconds=event.total_seconds, saving_compiles=1),
        source=_source(loc),
        details={"kind": "identical", "earlier_index": old.index, "key_difference": what,
                 "differences": details, "fingerprint": event.fingerprint,
                 "wasted_seconds": event.total_seconds},
        evidence=f"the normalised StableHLO of compiles #{old.index} and #{event.index} have one digest "
                 f"({event.fingerprint}); the cache key difference is read from the two calls' recorded "
                 "signatures and function objects", confidence="likely", **_base(old, event))


def _constants_only(old: CompileEvent, event: CompileEvent, a: list[str] | None,
                    b: list[str] | None) -> RuntimeFinding:
    changes = constant_changes(a, b) if a is not None and b is not None else []
    shown = ", ".join(f"{_plain(x)} vs {_plain(y)}" for x, y in changes[:3])
    if len(changes) > 3:
        shown += f" and {len(changes) - 3} more"
    what, eager_title, eager_why, details = _key_difference(old, event)
    via = f"; jit's cache key differed by {what}{' (' + '; '.join(details) + ')' if details else ''}"
    # An eager lax.cond/scan/while_loop retraces its closure bodies at every call whatever they capture: passing the
    # constant as an argument would still compile again (JW403); jitting the caller makes it a traced value.
    eager = what.endswith(_EAGER_TAIL)
    title, why = (eager_title, eager_why + " The values its bodies capture (the constants that differ here) then "
                  "become traced values of that one program.") if eager else _BAKED
    baked = f" ({shown} baked in as {'a constant' if len(changes) == 1 else 'constants'})" if shown else ""
    loc = event.call_site or event.definition
    return RuntimeFinding(
        "JW404", event.function,
        f"compile #{event.index} of {event.function} differs from compile #{old.index} only in literal "
        f"constants{baked}: {fmt_seconds(event.total_seconds)} wasted{via}", "warning", loc,
        Fix(title, why, location=loc, saving_seconds=event.total_seconds, saving_compiles=1),
        source=_source(loc), details={"kind": "constants", "earlier_index": old.index, "key_difference": what,
                 "differences": details, "constants": [{"a": x, "b": y} for x, y in changes],
                 "constants_blind_fingerprint": event.constants_blind_fingerprint,
                 "wasted_seconds": event.total_seconds},
        evidence=f"the normalised StableHLO of compiles #{old.index} and #{event.index} have one digest with every "
                 f"constant blanked ({event.constants_blind_fingerprint}) and differ with them"
                 + (f" in {len(changes)} constant{'s' if len(changes) != 1 else ''}" if changes else ""),
        confidence="likely", **_base(old, event))


def duplicate_findings(events: Sequence[CompileEvent],
                       programs: Mapping[str, ProgramConstants] | None = None) -> list[RuntimeFinding]:
    """JW403/JW404 over a whole saved run, in compile order (``programs``: the run's program table)."""
    tracker = DuplicateTracker()
    out = []
    for e in events:
        entry = (programs or {}).get(e.fingerprint or "")
        f = tracker.observe(e, list(entry.constants) if entry is not None else None)
        if f is not None:
            out.append(f)
    return out
