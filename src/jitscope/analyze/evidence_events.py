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
_EAGER_MARK = "called outside jit"  # duplicates._EAGER: an eager lax.cond/while_loop/scan with fresh bodies


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
    if f.code in ("JW403", "JW404"):
        what = str(d.get("key_difference", ""))
        if _EAGER_MARK in what:
            return "JS209", what
        for start, rule in RECOMPILE_RULES:
            if what.startswith(start):
                return rule, what
    return None


def _where(f: Any) -> tuple[str, int] | None:
    d = f.details or {}
    if f.code in ("JW101", "JW102"):  # a leak is where JAX says the tracer was made, else its trace's function
        for key in ("created_at", "leak_site"):
            site = d.get(key)
            if isinstance(site, dict) and site.get("file") and site.get("line"):
                return str(site["file"]), int(site["line"])
    loc = f.location
    return (loc.file, loc.line) if loc is not None and loc.file and loc.line else None


def events(findings: Iterable[Any]) -> list:
    """The ``ObservedEvent`` records of watch's findings (``analyze.runtime_record.RuntimeFinding``), one per
    (rule, line, error, cause), counted, in file and line order."""
    from ..model import ObservedEvent

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
        error = str(d.get("error", "")) if f.code in ("JW101", "JW102", "JW107") else ""
        n = int(d.get("count", 1) or 1)
        key = (rule, where, error, cause)
        ev = out.get(key)
        if ev is not None:
            ev.count += n
            continue
        out[key] = ObservedEvent(code=rule, runtime_code=f.code, file=where[0], line=where[1], function=f.function,
                                 error=error, cause=cause[:300], count=n,
                                 severity="error" if f.severity == "error" else "warning",
                                 fix_title=f.fix.title if f.fix else "", fix_why=f.fix.description if f.fix else "")
    return sorted(out.values(), key=lambda e: (e.file, e.line, e.code, e.error, e.cause))


def add_crash(found: list, crash: Any, message: str = "") -> list:
    """``found`` with the error the program died of (``tracer_errors.explain_program_error``'s finding: a tracer
    error, an unhashable static argument) at the innermost frame of the user's code, unless a failed trace
    (JW101) already gave it there. An uncaught error is what a run of a bug most often shows."""
    from ..model import ObservedEvent

    if crash is None or crash.location is None or not crash.location.file:
        return found
    d = crash.details or {}
    error = str(d.get("error", ""))
    if crash.code == "static-unhashable":
        rule, cause = "JS602", f"a static argument of type {d.get('type', '?')} could not be hashed"
    else:
        rule, cause = TRACE_ERROR_RULES.get(crash.name or "", ""), str(d.get("jax_message", ""))
    if not rule:
        return found
    loc = crash.location
    if rule == "JS403":
        from .runtime_record import leak_created

        made = leak_created(message)
        if made is not None:
            from ..model import Location

            loc = Location(made["file"], made["line"], function=loc.function)
    if any((e.code, e.file, e.line, e.error) == (rule, loc.file, loc.line, error) for e in found):
        return found
    ev = ObservedEvent(code=rule, runtime_code="crash", file=loc.file, line=loc.line, function=loc.function or "",
                       error=error, cause=cause[:300], count=1, severity="error",
                       fix_title=crash.fix.title if crash.fix else "", fix_why=crash.fix.description if crash.fix else "")
    return sorted([*found, ev], key=lambda e: (e.file, e.line, e.code, e.error, e.cause))
