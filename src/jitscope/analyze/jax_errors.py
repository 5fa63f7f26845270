"""Errors JAX raised into the program outside a trace, as runtime findings (JW102-JW107).

The records come from ``collect/jax_signals.JaxErrorProbe`` (JAX's exception boundary): an exception
JAX raised where the program called a JAX API, kept whether the program caught it or not. Three kinds are
pitfalls of jit with one cause and one fix each, recognised by JAX's own error class and message:

* JW102 ``leaked-tracer``: ``UnexpectedTracerError`` outside a trace: a tracer stored by a traced function
  (a global, an attribute, a list) and used after its trace ended. JAX's message names the function whose
  trace leaked it; the finding is at the line that used it.
* JW103 ``invalid-jit-argument``: jit could not abstract an argument (a string, a function, an object):
  ``Error interpreting argument to <f> as an abstract array`` (JAX 0.4.3x and later) or ``... is not a
  valid JAX type``.
* JW104 ``donated-array-reuse``: a deleted array used again: ``Array has been deleted`` (donated to a jitted
  call with ``donate_argnums``, or deleted explicitly), or, passed to the executable, ``Buffer has been
  deleted or donated``; and one buffer donated twice in one call (``Attempt to donate the same buffer twice``:
  the same array, or two pytree leaves bound to one array, in donated arguments).
* JW105 ``inplace-array-update``: ``x[idx] = v`` on a JAX array or tracer (``JAX arrays are immutable``).
* JW106 ``device-out-of-memory``: an allocation failed (``RESOURCE_EXHAUSTED``), eagerly or in a jitted
  call.
* JW107 ``unhashable-static-argument``: a jitted function's static argument could not be hashed
  (``Non-hashable static arguments are not supported``: a list, a dict, a non-frozen dataclass), raised by
  JAX's C++ dispatch at the call, also under a wrapper that makes arguments static (``equinox.filter_jit``);
  the fix is phrased for that wrapper's options.

Tracer errors raised inside a trace are JW101's (``runtime_findings``), and any other exception is the
program's own business: only these classes are reported, all ``error`` (JAX raised them: certain).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from .._format import fmt_bytes
from ..jaxmodel import fixes
from ..model import Fix, Location
from .runtime_findings import RuntimeFinding, _source
from .runtime_record import leak_created

_LEAK_FN = re.compile(r"value leaked was (\S+) at (.+?):(\d+) traced for (\w+)")
_BAD_ARG = re.compile(r"Error interpreting argument to <function (\S+) at 0x[0-9a-f]+> as an abstract array\. "
                      r"The problematic value is of type <class '([^']+)'> and was passed to the function at "
                      r"path ([^\s]+?)\.?\s")
_BAD_ARG_OLD = re.compile(r"Argument '(.*?)' of type <class '([^']+)'> is not a valid JAX type")
_DELETED = re.compile(r"Array has been deleted|buffer has been deleted or donated|has been donated", re.IGNORECASE)
_DONATED_TWICE = re.compile(r"Attempt to donate the same buffer twice")
_IMMUTABLE = re.compile(r"JAX arrays are immutable|does not support item assignment")
_OOM = re.compile(r"RESOURCE_EXHAUSTED|[Oo]ut of memory")
_BYTES = re.compile(r"allocating (\d+) bytes")
_UNHASHABLE = re.compile(r"Non-hashable static arguments are not supported")
_UNHASHABLE_INNER = re.compile(r"unhashable type: '([^']+)'")
_UNHASHABLE_TYPE = re.compile(r"hash an object of type <class '([^']+)'>")


class ErrorRecord(Protocol):
    """What this module needs of ``collect.jax_signals.JaxError``."""

    error: str
    bases: tuple[str, ...]
    message: str
    location: Location | None
    time: float
    in_trace: bool
    count: int
    library: str


def error_findings(errors: list[Any], t0: float, events: Any = ()) -> list[RuntimeFinding]:
    """JW102-JW107 for the errors that are one of those pitfalls; the rest are left alone (``events``: the
    run's compile events, which name the donating function of a donation JAX refused at its compiling call)."""
    out = []
    for e in errors:
        try:
            f = _finding(e, t0)
            if f is not None and f.code == "JW104":
                f = _donated_by(f, e, events)
        except Exception:  # noqa: BLE001 - an unexpected message costs that finding only
            f = None
        if f is not None:
            out.append(f)
    return out


def _donated_by(f: RuntimeFinding, e: ErrorRecord, events: Any) -> RuntimeFinding:
    """A donation JAX refused at the very call that compiled a donating jitted function (its call site is the
    error's line): the finding names that function and its fix points at its definition, where
    ``donate_argnums`` is written (the call is where it failed, the options are where it is fixed)."""
    loc = e.location
    if loc is None:
        return f
    hits = [ev for ev in events if ev.call_site is not None and ev.call_site.file == loc.file
            and ev.call_site.line == loc.line and "donate" in (ev.jit_options or "")]
    if not hits:
        return f
    ev = hits[-1]
    f.function = ev.function
    f.message += f" (donating jitted function {ev.function}: {ev.jit_options})"
    if ev.definition is not None and f.fix is not None:
        f.fix = Fix(f.fix.title, f.fix.description, location=ev.definition)
    f.details["donated_by"] = ev.function
    return f


def _times(n: int) -> str:
    return "" if n == 1 else f" ({n} times)"


def _library_trace_error(e: ErrorRecord, base: dict, where: str) -> RuntimeFinding | None:
    """JW101 for a tracer error raised while JAX traced a function with no line of the program in it (a JAX or
    library function jitted directly, ``jax.jit(jax.nn.one_hot)``): the trace's own JW101 is not made (the
    function is not the user's), so the error is the program's at its call. Only where the traceback has no
    program frame deeper than the call (``inner`` is the call's own line): a failed trace of the user's own
    function is reported by its compile event."""
    from .tracer_errors import _TRACER_ERRORS, ADVICE

    name = next((n for n in _TRACER_ERRORS if n in e.bases), "")
    loc = e.location
    if not name or name == "UnexpectedTracerError" or loc is None or e.in_trace:
        return None
    inner = getattr(e, "inner", None)
    if inner is not None and (inner.file, inner.line) != (loc.file, loc.line):
        return None  # the program's own code was traced: its compile event's JW101
    what, title, why = ADVICE[name]
    arg = "the value"
    return RuntimeFinding(
        "JW101", loc.function or "?",
        f"a trace failed inside a library function called at {where}: {what}; JAX raised {e.error}"
        f"{_times(e.count)}", "error",
        fix=Fix(title.format(arg=arg), why.format(arg=arg, static="pass it as a static argument of the jit "
                                                      "(static_argnums / static_argnames)"), location=loc),
        details={"error": e.error, "class": name, "count": e.count, "jax_message": e.message[:500],
                 "trace_kind": "library",
                 "evidence": f"JAX raised {e.error} while tracing a function with no line of the program, called "
                             f"at this line (the program caught it or not)"},
        confidence="certain", **base)


def _finding(e: ErrorRecord, t0: float) -> RuntimeFinding | None:
    loc = e.location
    base = {"location": loc, "source": _source(loc), "timestamp": max(0.0, e.time - t0)}
    where = f"{loc.function or '?'} (line {loc.line})" if loc else "the program"
    caught = "the program raised it"
    if "UnexpectedTracerError" in e.bases and not e.in_trace:
        m = _LEAK_FN.search(e.message)
        fn, leak_site = (m.group(1), Location(m.group(2), int(m.group(3)), function=m.group(1))) if m else ("?", None)
        return RuntimeFinding(
            "JW102", fn if m else (loc.function if loc and loc.function else "?"),
            f"a tracer leaked by the trace of {fn}{f' (line {leak_site.line})' if leak_site else ''} was used at "
            f"{where} after its trace ended: JAX raised UnexpectedTracerError{_times(e.count)}", "error",
            fix=Fix(fixes.LEAKED_TRACER.title, fixes.LEAKED_TRACER.why, location=leak_site or loc),
            details={"error": e.error, "leaked_by": fn, "leak_site": leak_site.to_dict() if leak_site else None,
                     "created_at": leak_created(e.message), "count": e.count,
                     "evidence": f"JAX raised {e.error} at the program's call ({caught})"},
            **base)
    library_trace = _library_trace_error(e, base, where)
    if library_trace is not None:
        return library_trace
    if "TypeError" in e.bases:
        m = _BAD_ARG.search(e.message + " ")
        old = None if m else _BAD_ARG_OLD.search(e.message)
        if m or old:
            fn = m.group(1) if m else (loc.function if loc and loc.function else "?")
            typ = m.group(2) if m else old.group(2)  # type: ignore[union-attr]
            path = m.group(3) if m else old.group(1)  # type: ignore[union-attr]
            return RuntimeFinding(
                "JW103", fn,
                f"jit could not trace argument '{path}' of {fn}: a {typ} is not an array (called at {where})"
                f"{_times(e.count)}", "error",
                fix=Fix(fixes.INVALID_ARGUMENT.title, fixes.INVALID_ARGUMENT.why, location=loc),
                details={"error": e.error, "argument": path, "type": typ, "count": e.count,
                         "defined_at": list(getattr(e, "defined", None) or ()),
                         "evidence": f"JAX raised {e.error} at the jit call boundary ({caught})"}, **base)
    if _UNHASHABLE.search(e.message) and ("ValueError" in e.bases or "TypeError" in e.bases):
        # The innermost unhashable type (JAX's message names it last; first, the static argument's own type).
        m = _UNHASHABLE_INNER.search(e.message) or _UNHASHABLE_TYPE.search(e.message)
        typ = m.group(1) if m else "a value"
        advice = fixes.unhashable_static(typ.rsplit(".", 1)[-1], getattr(e, "library", "") or "jax")
        return RuntimeFinding(
            "JW107", loc.function if loc and loc.function else "?",
            f"a static argument of type {typ} could not be hashed at {where}: JAX raised {e.error} "
            f"(Non-hashable static arguments){_times(e.count)}", "error",
            fix=Fix(advice.title, advice.why, location=loc),
            details={"error": e.error, "type": typ, "count": e.count, "library": getattr(e, "library", ""),
                     "defined_at": list(getattr(e, "defined", None) or ()),
                     "evidence": f"JAX raised {e.error} hashing the static arguments at the jitted call ({caught})"},
            **base)
    if _IMMUTABLE.search(e.message) and "TypeError" in e.bases:
        return RuntimeFinding(
            "JW105", loc.function if loc and loc.function else "?",
            f"in-place item assignment (x[idx] = v) on a JAX array at {where}: JAX raised TypeError"
            f"{_times(e.count)}", "error",
            fix=Fix(fixes.FUNCTIONAL_UPDATE.title, fixes.FUNCTIONAL_UPDATE.why, location=loc),
            details={"error": e.error, "count": e.count, "in_trace": e.in_trace,
                     "evidence": f"JAX raised {e.error} from __setitem__ ({caught})"}, **base)
    if _OOM.search(e.message) and "RuntimeError" in e.bases:
        m = _BYTES.search(e.message)
        size = f" ({fmt_bytes(int(m.group(1)))} requested)" if m else ""
        return RuntimeFinding(
            "JW106", loc.function if loc and loc.function else "?",
            f"the device ran out of memory at {where}{size}: JAX raised {e.error}{_times(e.count)}", "error",
            fix=Fix(fixes.DEVICE_MEMORY.title, fixes.DEVICE_MEMORY.why, location=loc),
            details={"error": e.error, "count": e.count, "bytes": int(m.group(1)) if m else None,
                     "evidence": f"JAX raised {e.error} (RESOURCE_EXHAUSTED) ({caught})"}, **base)
    if _DONATED_TWICE.search(e.message) and ("RuntimeError" in e.bases or "ValueError" in e.bases):
        return RuntimeFinding(
            "JW104", loc.function if loc and loc.function else "?",
            f"one array was passed to two donated arguments at {where}: JAX cannot donate the same buffer twice "
            f"and refused the call{_times(e.count)}", "error",
            fix=Fix(fixes.DONATED_TWICE.title, fixes.DONATED_TWICE.why, location=loc),
            details={"error": e.error, "count": e.count, "donated_twice": True,
                     "evidence": f"JAX raised {e.error} ('{e.message.splitlines()[0][:80]}') ({caught})"}, **base)
    if _DELETED.search(e.message) and ("RuntimeError" in e.bases or "ValueError" in e.bases):
        shape = re.search(r"shape=(\S+?)\.?$", e.message.splitlines()[0] if e.message else "")
        what = f" ({shape.group(1)})" if shape else ""
        return RuntimeFinding(
            "JW104", loc.function if loc and loc.function else "?",
            f"an array{what} was used at {where} after it was deleted: donated to a jitted call "
            f"(donate_argnums) or deleted explicitly{_times(e.count)}", "error",
            fix=Fix(fixes.DONATED_REUSE.title, fixes.DONATED_REUSE.why, location=loc),
            details={"error": e.error, "count": e.count,
                     "evidence": f"JAX raised {e.error} ('{e.message.splitlines()[0][:80]}') ({caught})"}, **base)
    return None
