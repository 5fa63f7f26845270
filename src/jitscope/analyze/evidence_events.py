"""What a run observed at the user's lines, as trace-evidence events for ``jitscope lint --evidence``.

watch already sees these, only at a trace, a compile or an error (never on a cached call): a failed trace
(JW101, at the innermost frame of the user's code), a tracer used after its trace (JW102, at the line of the
traced function that made it), a static argument JAX could not hash (JW107, at the call), a compile that
built a program the function already had (JW403/JW404, at the call, with what differed in jit's cache key).
``events`` turns those findings into ``model.ObservedEvent`` records under the lint rule of the same class,
so that lint reports what the run proved at the line its static rule would (docs/lint.md, "Evidence from a
run: what the run observed"). Nothing is recorded that watch did not already find; a finding of another
class has no lint rule and is left out.

Which rule: a failed trace by JAX's error class (``tracer_errors.error_class``); a recompile by the first
difference watch named in jit's cache key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# JAX's error class (JW101's details["class"]) -> the lint rule of that class
TRACE_ERROR_RULES = {
    "TracerBoolConversionError": "JS101",  # bool() of a tracer: if/while/and/or/assert on it
    "ConcretizationTypeError": "JS103",  # a concrete Python value asked of a tracer (int(), float(), a size)
    "TracerIntegerConversionError": "JS103",  # int()/index of a tracer
    "TracerArrayConversionError": "JS104",  # np.asarray of a tracer
    "NonConcreteBooleanIndexError": "JS301",  # x[mask] with a traced mask
    "ShapeFromTracer": "JS303",  # a traced value as a shape
    "UnexpectedTracerError": "JS403",  # a tracer of another trace used in this one: leaked through state
}

# What differed in jit's cache key (the start of JW403/JW404's key_difference) -> the lint rule of that class
RECOMPILE_RULES = (
    ("weak type", "JS210"),
    ("a static value rebuilt", "JS605"),
    ("static value", "JS208"),
    ("a new function object", "JS204"),
)
# Errors JAX raises OUTSIDE a trace (a jitted call's argument parsing, array creation, the end of a trace under
# the leak checker): recognised by JAX's (or NumPy's, under jnp) own wording, whatever the exception's class.
_OVERFLOW = re.compile(r"overflow was encountered while parsing an argument to a jitted computation")
# NumPy's wording, under jnp.array/asarray/full (the error's traceback passes through JAX; NumPy alone is not jit's)
_OVERFLOW_NUMPY = re.compile(r"Python int(?:eger)? -?\d+ (?:is )?(?:out of bounds|too large to convert) (?:for|to) u?int\d+")
_LEAK_CHECK = re.compile(r"^Leaked (?:trace|level|sublevel)\b")  # jax.checking_leaks / jax_check_tracer_leaks
_LEAK_TRACING = re.compile(r"while tracing the function (\S+) at (.+?):(\d+) for")
_CARRY_TYPES = re.compile(r"(?:carry|branches|output).{0,80}must have (?:equal|identical)(?: output)? types", re.S)
# JAX's cond/switch wording names each differing output leaf: "DIFFERENT ShapedArray(int64[], weak_type=True) vs.
# ShapedArray(int32[])"; the same shape with another dtype is the carry/branch dtype class (JS305), a shape is not
_DIFFERENT = re.compile(r"DIFFERENT ShapedArray\((\w+)\[([^\]]*)\][^)]*\) vs\. ShapedArray\((\w+)\[([^\]]*)\]")
_EAGER_MARK = "called outside jit"
# jit refusing its own options against the function's signature, at the jit (a decorator: when the module is
# imported): "Jitted function has invalid argnames {'scale'} in static_argnames. Function does not take these
# args." / "Jitted function has static_argnums=(3,), but only accepts 2 positional arguments." (JAX 0.4.4 on;
# older JAX only warned)
_JIT_OPTION = re.compile(r"Jitted function has (?:invalid argnames .{0,200}? in (?:static|donate)_argnames|"
                         r"(?:static|donate)_argnums=.{0,200}? but only accepts \d+ positional arguments)")  # duplicates._EAGER: an eager lax.cond/while_loop/scan with fresh bodies


def _rule(f: Any) -> tuple[str, str] | None:
    """(lint rule, cause) of one watch finding, or None when no lint rule has its class."""
    d = f.details or {}
    if f.code == "JW101":
        rule = TRACE_ERROR_RULES.get(d.get("class", ""))
        return (rule, d.get("jax_message", "")) if rule else None
    if f.code == "JW102":
        return "JS403", f"a tracer made here by the trace of {d.get('leaked_by', '?')} was used after its trace"
    if f.code == "JW107":
        return "JS602", f"a static argument of type {d.get('type', '?')} could not be hashed"
    if f.code == "JW103":  # no static rule has this class: a non-array argument jit refused to trace
        return "JS701", (f"jit could not trace argument '{d.get('argument', '?')}' of `{f.function}`: a "
                         f"{d.get('type', '?')} is not an array")
    if f.code in ("JW403", "JW404"):
        what = str(d.get("key_difference", ""))
        if _EAGER_MARK in what:
            return "JS209", what
        for start, rule in RECOMPILE_RULES:
            if what.startswith(start):
                return rule, what
    return None


def raised_rule(error: str, bases: Iterable[str], message: str, through_jax: bool = True) -> tuple[str, str] | None:
    """(lint rule, cause) of an exception JAX raised, by its class (a tracer error) or JAX's wording (an int out
    of int32's range at a jitted call or an array's creation; the leak checker's plain ``Exception``; a loop carry
    or cond branches whose dtypes differ); None for anything else (the program's own business). ``through_jax``:
    JAX's code was on the exception's way (NumPy's overflow wording counts only then)."""
    names = [error, *bases]  # the class's own name first, then its MRO: the most specific class decides
    first = message.strip().splitlines()[0][:300] if message.strip() else ""
    for name in names:
        rule = TRACE_ERROR_RULES.get(name)
        if rule:
            return rule, first
    if "OverflowError" in names and (_OVERFLOW.search(message) or through_jax and _OVERFLOW_NUMPY.search(message)):
        return "JS306", first
    if _LEAK_CHECK.search(message.lstrip()):
        m = _LEAK_TRACING.search(message)
        return "JS403", f"the leak checker found a tracer of the trace of {m.group(1) if m else '?'} still referenced"
    if "ValueError" in names and _JIT_OPTION.search(message):
        return "JS613", first
    if "TypeError" in names and _CARRY_TYPES.search(message) and ("dtype" in message or _dtype_differs(message)):
        return "JS305", first + _outputs(message) + _carries(message)
    return None


# lax.scan/while_loop/fori_loop: "The input carry component c[1] has type int32[] but the corresponding output carry
# component has type float32[]" ("The input carry carry has type ...": the whole carry, named by the body's parameter)
_CARRY_WORDING = re.compile(r"input carry (?:component )?([A-Za-z_]\w*(?:\[\d+\]|\.\w+|\['[^']*'\])*) has type "
                            r"(\w+\[[^\]]*\]) but the corresponding output carry component has type (\w+\[[^\]]*\])")


def _carries(message: str) -> str:
    """`` (carry c[1]: int32[] in vs. float32[] out)`` for each loop carry component JAX's wording says differs (lint's
    ``evidence_origin`` finds where the body computes it), or ''."""
    said = [f"carry {m.group(1)}: {m.group(2)} in vs. {m.group(3)} out" for m in _CARRY_WORDING.finditer(message)]
    return f" ({'; '.join(said)})" if said else ""


_ENTRY = re.compile(r"'((?:DIFFERENT )?ShapedArray\([^']*)'")
_SHAPED = re.compile(r"ShapedArray\((\w+\[[^\]]*\])(, weak_type=True)?")


# JAX 0.5 and later: "The output of true_fun at path [0] has type int32[] but the corresponding output of false_fun
# has type float32[], so the dtypes do not match" (lax.switch: "branch 0" ... "branch1")
_PATH_WORDING = re.compile(r"output of (true_fun|branch ?\d+) at path \[(\d+)\] has type (\w+\[[^\]]*\]) but the "
                           r"corresponding output of (false_fun|branch ?\d+) has type (\w+\[[^\]]*\])")


def _side(name: str) -> int:
    return 0 if name == "true_fun" else 1 if name == "false_fun" else int(name[6:].strip())


def _outputs(message: str) -> str:
    """`` (output 0 of branches 0,1: int64[] weak vs. int32[]; ...)`` for the outputs whose types JAX's cond/switch
    wording says differ (lint's ``evidence_origin`` reads it), or ''. ``weak``: JAX said weak_type (a Python
    scalar); the newer wording does not say it."""
    said = []
    for i, m in enumerate(_ENTRY.finditer(message)):
        sides = _SHAPED.findall(m.group(1))
        if m.group(1).startswith("DIFFERENT") and len(sides) == 2:
            said.append(f"output {i} of branches 0,1: " + " vs. ".join(t + (" weak" if w else "") for t, w in sides))
    for m in _PATH_WORDING.finditer(message):
        said.append(f"output {m.group(2)} of branches {_side(m.group(1))},{_side(m.group(4))}: "
                    f"{m.group(3)} vs. {m.group(5)}")
    return f" ({'; '.join(said)})" if said else ""


def _dtype_differs(message: str) -> bool:
    return any(m.group(1) != m.group(3) and m.group(2) == m.group(4) for m in _DIFFERENT.finditer(message))


def raised_where(rule: str, message: str, inner: Any) -> tuple[str, int, str] | None:
    """(file, line, function) of an error JAX raised: the function whose trace leaked, for the leak checker (JAX
    names it: that is where the store that leaks is); else the innermost frame of the user's code."""
    if rule == "JS403":
        m = _LEAK_TRACING.search(message)
        if m:
            return m.group(2), int(m.group(3)), m.group(1)
    if inner is None or not getattr(inner, "file", "") or not getattr(inner, "line", 0):
        return None
    return inner.file, int(inner.line), getattr(inner, "function", "") or ""


# watch's own findings already make these (JW101 at the failed trace's line, JW102 where the leaked tracer was
# made, JW107 at the call): the same error seen by the error probe is not a second event
_WATCH_MADE = ("UnexpectedTracerError",)


def error_events(errors: Iterable[Any], found: list) -> list:
    """``found`` with the errors JAX raised into the program (``collect.jax_signals.JaxError``: at a JAX API the
    program called, caught or not) that ``raised_rule`` knows, outside a trace (a failed trace is JW101's), at
    the innermost frame of the user's code; one per (rule, line, error), counted."""
    from ..model import ObservedEvent

    out = list(found)
    index = {(e.file, e.line, e.error): e for e in out}
    for rec in errors:
        try:
            if rec.in_trace or any(b in _WATCH_MADE for b in rec.bases):
                continue
            hit = raised_rule(rec.error, rec.bases, rec.message)
            where = raised_where(hit[0], rec.message, rec.inner or rec.location) if hit else None
        except Exception:  # noqa: BLE001 - an unexpected record costs that event only
            continue
        if hit is None or where is None:
            continue
        key = (where[0], where[1], rec.error)
        frames = list(getattr(rec, "frames", None) or ())
        if key in index:
            if frames and not index[key].frames:
                index[key].frames = frames
            continue  # watch's own finding (a failed trace's, JW101) gave this error at this line
        ev = index[key] = ObservedEvent(code=hit[0], runtime_code="raised", file=where[0], line=where[1],
                                        function=where[2], error=rec.error, cause=hit[1][:300], count=rec.count,
                                        severity="error", frames=frames)
        out.append(ev)
    return sorted(out, key=lambda e: (e.file, e.line, e.code, e.error, e.cause))


def _where(f: Any) -> tuple[str, int] | None:
    d = f.details or {}
    if f.code in ("JW101", "JW102"):  # a leak is where JAX says the tracer was made, else its trace's function
        for key in ("created_at", "leak_site"):
            site = d.get(key)
            if isinstance(site, dict) and site.get("file") and site.get("line"):
                return str(site["file"]), int(site["line"])
    loc = f.location
    return (loc.file, loc.line) if loc is not None and loc.file and loc.line else None


_BODY = re.compile(r"[^\s,@]+@(.+?):(\d+)(?:, |$)")


def _built_at(f: Any, rule: str, compiles: dict[int, Any]) -> list[str]:
    """An eager lax.cond/while_loop/scan recompiled (JS209): where its body functions were defined
    (``collect/programs.py`` binds them as ``bodies: name@file:line, ...``), as ``file:line``."""
    if rule != "JS209" or f.compile_index is None or f.compile_index not in compiles:
        return []
    bindings = str(getattr(compiles[f.compile_index], "bindings", "") or "")
    if not bindings.startswith("bodies: "):
        return []
    return [f"{m.group(1)}:{m.group(2)}" for m in _BODY.finditer(bindings[len("bodies: "):])]


def events(findings: Iterable[Any], compiles: Iterable[Any] = ()) -> list:
    """The ``ObservedEvent`` records of watch's findings (``analyze.runtime_record.RuntimeFinding``), one per
    (rule, line, error, cause), counted, in file and line order. ``compiles``: the run's ``CompileEvent``s
    (an eager control-flow recompile's event says where its bodies were built)."""
    from ..model import ObservedEvent

    by_index = {getattr(c, "index", None): c for c in compiles}
    out: dict[tuple, ObservedEvent] = {}
    for f in findings:
        try:
            hit = _rule(f)
            where = _where(f) if hit else None
        except Exception:  # noqa: BLE001 - an unexpected record costs that event only
            continue
        if hit is None or where is None:
            continue
        rule, cause = hit
        d = f.details or {}
        if rule in ("JS208", "JS605"):
            cause = _static_cause(cause, d)
        error = str(d.get("error", "")) if f.code in ("JW101", "JW102", "JW103", "JW107") else ""
        n = int(d.get("count", 1) or 1)
        key = (rule, where, error, cause)
        ev = out.get(key)
        if ev is not None:
            ev.count += n
            continue
        out[key] = ObservedEvent(code=rule, runtime_code=f.code, file=where[0], line=where[1], function=f.function,
                                 error=error, cause=cause[:300], count=n,
                                 severity="error" if f.severity == "error" else "warning",
                                 fix_title=f.fix.title if f.fix else "", fix_why=f.fix.description if f.fix else "",
                                 built_at=_built_at(f, rule, by_index),
                                 defined_at=_defined_at(f, rule, by_index) or [str(x) for x in d.get("defined_at") or ()])
    return sorted(out.values(), key=lambda e: (e.file, e.line, e.code, e.error, e.cause))


def _static_cause(what: str, d: dict) -> str:
    """A static-value recompile's cause with the arguments whose value changed (``differences``: ``self: <Model
    object at 0x.., hashed by identity> -> <...>``), and whether they are hashed by identity (a new instance is a
    new cache entry whatever its fields): ``static value: self (hashed by identity)``. Addresses are left out so
    that one event counts every recompile of its kind."""
    diffs = [str(x) for x in d.get("differences") or () if isinstance(x, str)]
    names = sorted({x.partition(":")[0].strip() for x in diffs if ":" in x})
    if not names:
        return what
    identity = " (hashed by identity)" if any("hashed by identity" in x for x in diffs) else ""
    return f"{what}: {', '.join(names)}{identity}"


_RECOMPILES = {rule for _, rule in RECOMPILE_RULES}


def _defined_at(f: Any, rule: str, compiles: dict[int, Any]) -> list[str]:
    """A recompile's function, where the program defines it (the compile's ``definition``: its code's first line),
    as ``file:line``: a driver's loop outside the linted tree recompiles a function the tree defines."""
    if rule not in _RECOMPILES or f.compile_index is None or f.compile_index not in compiles:
        return []
    loc = getattr(compiles[f.compile_index], "definition", None)
    return [f"{loc.file}:{loc.line}"] if loc is not None and loc.file and loc.line else []


def add_crash(found: list, crash: Any, message: str = "", exc: BaseException | None = None,
              frames: list | None = None, sites: list | None = None, defined: list | None = None) -> list:
    """``found`` with the error the program died of (``tracer_errors.explain_program_error``'s finding: a tracer
    error, an unhashable static argument; else, given the exception ``exc``, any error ``raised_rule`` knows: an
    int out of int32's range, the leak checker; else any other error that passed through JAX's code or was raised
    while JAX traced: ``JS701``) at the innermost frame of the user's code, unless an event already gave it
    there (that event then gets the chain). ``frames``: every program frame the error passed through and their
    callers (``collect.error_chain.program_chain``), outermost first: lint reports at the innermost one inside
    the linted tree. ``sites``: where the value the error is about was declared (``collect.error_chain.
    field_declared``: a pytree field JAX refused to trace), kept as the event's ``built_at``. ``defined``: where
    the functions the raising line handed to JAX are defined (``collect.error_chain.handed_to_jax``), the event's
    ``defined_at``. An uncaught error is what a run of a bug most often shows."""
    from ..model import ObservedEvent

    frames, sites, defined = list(frames or ()), list(sites or ()), list(defined or ())
    if crash is None or crash.location is None or not crash.location.file:
        return _add_raised(found, exc, frames, sites, defined) if exc is not None else found
    d = crash.details or {}
    error = str(d.get("error", ""))
    if crash.code == "static-unhashable":
        rule, cause = "JS602", f"a static argument of type {d.get('type', '?')} could not be hashed"
    else:
        rule, cause = TRACE_ERROR_RULES.get(crash.name or "", ""), str(d.get("jax_message", ""))
    if not rule:
        return _add_raised(found, exc, frames, sites, defined) if exc is not None else found
    loc = crash.location
    if rule == "JS403":
        from .runtime_record import leak_created

        made = leak_created(message)
        if made is not None:
            from ..model import Location

            loc = Location(made["file"], made["line"], function=loc.function)
    if _has(found, (rule, loc.file, loc.line, error), frames, defined):
        return found
    ev = ObservedEvent(code=rule, runtime_code="crash", file=loc.file, line=loc.line, function=loc.function or "",
                       error=error, cause=cause[:300], count=1, severity="error",
                       fix_title=crash.fix.title if crash.fix else "", fix_why=crash.fix.description if crash.fix else "",
                       frames=frames, defined_at=defined)
    return sorted([*found, ev], key=lambda e: (e.file, e.line, e.code, e.error, e.cause))


def _has(found: list, key: tuple, frames: list, defined: list | None = None, sites: list | None = None) -> bool:
    """Is there an event ``(code, file, line, error)`` already? It gets ``frames``, ``defined`` and ``sites`` (its
    ``built_at``) when it has none (watch's JW103 of the same error, seen at the call, knows neither)."""
    for e in found:
        if (e.code, e.file, e.line, e.error) == key:
            if frames and not e.frames:
                e.frames = frames
            if defined and not e.defined_at:
                e.defined_at = list(defined)
            if sites and not e.built_at:
                e.built_at = list(sites)
            return True
    return False


def _add_raised(found: list, exc: BaseException, frames: list, sites: list, defined: list) -> list:
    """``found`` with the error ``exc`` the program died of: under the rule ``raised_rule`` gives its class;
    else, when JAX's code was on its way or it was raised while JAX traced (a frame held a tracer), under
    ``JS701`` (an error no static rule covers, observed: JAX's message and the frames that reached it)."""
    from ..model import ObservedEvent
    from .tracer_errors import user_location

    message = str(exc)
    names = tuple(c.__name__ for c in type(exc).__mro__)
    through = _through_jax(exc)
    hit = raised_rule(type(exc).__name__, names, message, through)
    if hit is None and (through or any(f.get("traced") for f in frames)) and _jax_error(exc):
        first = message.strip().splitlines()[0][:300] if message.strip() else ""
        hit = ("JS701", first)
    where = raised_where(hit[0], message, user_location(exc)) if hit else None
    if hit is None or where is None:
        return found
    if _has(found, (hit[0], *where[:2], type(exc).__name__), frames, defined, sites):
        return found
    ev = ObservedEvent(code=hit[0], runtime_code="crash", file=where[0], line=where[1], function=where[2],
                       error=type(exc).__name__, cause=hit[1][:300], count=1, severity="error", frames=frames,
                       built_at=sites, defined_at=defined)
    return sorted([*found, ev], key=lambda e: (e.file, e.line, e.code, e.error, e.cause))


_JAX_FILTERED = "JAX has removed its internal frames"  # jax._src.traceback_util's note on a filtered traceback
# Exceptions that are the program's way of stopping, never an error JAX found
_NOT_ERRORS = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration", "MemoryError", "RecursionError")


def _jax_error(exc: BaseException) -> bool:
    """Is ``exc`` an error (not an interrupt, an exit, the program running out of memory or stack)?"""
    return not {c.__name__ for c in type(exc).__mro__} & set(_NOT_ERRORS)


def _through_jax(exc: BaseException) -> bool:
    """Did the exception (or one it was raised from or while handling) pass through a frame of JAX's? JAX removes
    its own frames from the traceback of an error leaving its API (``jax_traceback_filtering``) and says so: in a
    note (``quiet_remove_frames``, the default) or with an ``UnfilteredStackTrace`` as the cause (``remove_frames``)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if type(e).__name__ == "UnfilteredStackTrace" or any(
                _JAX_FILTERED in str(n) for n in (getattr(e, "__notes__", None) or ())):
            return True
        tb = e.__traceback__
        while tb is not None:
            if str(tb.tb_frame.f_globals.get("__name__", "")).split(".")[0] in ("jax", "jaxlib"):
                return True
            tb = tb.tb_next
        e = e.__cause__ or e.__context__
    return False
