"""A small real collector of trace evidence, for the lint tests (the watch-side collector is another piece).

``collect(call, roots)`` runs ``call()`` with ``sys.setprofile`` on and records every function whose
source lies under ``roots`` that runs while JAX traces: for each of its parameters whether the value
was an abstract tracer, a concrete one (``jax.core.is_concrete``: grad outside jit) or a Python value,
and the transformed entry point whose trace ran it (the outermost user frame under a tracer). It keeps
what it saw when ``call`` raises (a bug that fails while tracing is what evidence is for) and returns a
``model.TraceEvidence``.
"""

from __future__ import annotations

import os
import sys

import jax

from jitscope.model import TracedFunction, TracedParameter, TraceEvidence


def _kind(value) -> str:
    if isinstance(value, jax.core.Tracer):
        concrete = getattr(value, "to_concrete_value", None)  # JAX >= 0.4.36; jax.core.is_concrete is deprecated
        return "concrete" if concrete is not None and concrete() is not None else "abstract"
    return "static"


def collect(call, roots: list[str], entry, transform: str = "jax.jit") -> tuple[TraceEvidence, BaseException | None]:
    roots = [os.path.realpath(r) for r in roots]
    seen: dict[tuple, TracedFunction] = {}
    code = getattr(getattr(entry, "__wrapped__", entry), "__code__", None)  # a jitted function wraps the Python one

    def profile(frame, event, _arg):
        if event != "call":
            return
        co = frame.f_code
        path = os.path.realpath(co.co_filename)
        if not any(path.startswith(r) for r in roots):
            return
        names = co.co_varnames[:co.co_argcount + co.co_kwonlyargcount]
        params = tuple(TracedParameter(n, _kind(frame.f_locals.get(n))) for n in names)
        if not any(p.kind != "static" for p in params):
            return  # no tracer reached it: not running under a trace (or only on Python values)
        qualname = getattr(co, "co_qualname", co.co_name)
        key = (path, co.co_firstlineno, qualname, params)
        if key in seen:
            seen[key].traces += 1
            return
        seen[key] = TracedFunction(
            module=frame.f_globals.get("__name__", ""), qualname=qualname, file=path,
            line=co.co_firstlineno, parameters=list(params), entry=getattr(entry, "__qualname__", ""),
            entry_file=os.path.realpath(code.co_filename) if code else "", entry_line=code.co_firstlineno if code else 0,
            transform=transform)

    error = None
    sys.setprofile(profile)
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the trace that fails is the one to record
        error = e
    finally:
        sys.setprofile(None)
    return TraceEvidence(functions=list(seen.values()), program="tests"), error
