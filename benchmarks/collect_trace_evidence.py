"""Run a script and record the trace evidence `jitscope lint --evidence` reads (a stand-in for watch's collector).

    python benchmarks/collect_trace_evidence.py --roots DIR[,DIR] --out EVIDENCE.json -- SCRIPT [ARGS...]

With ``sys.setprofile`` on for the whole run, every call of a function whose source lies under a root
is checked: when one of its parameters is a JAX tracer, the function ran while JAX traced, and it is
recorded with what each parameter was (abstract tracer, concrete tracer, Python value) and the entry
point whose trace ran it (the outermost such user frame on the stack). The script's own exit (or an
exception: a bug that fails while tracing is what evidence is for) does not stop the record, which is
written at exit. Slow (every Python call is profiled): a measuring tool for benchmarks/lint_bug_recall.py,
not the collector users run.
"""

from __future__ import annotations

import argparse
import atexit
import os
import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from jitscope.model import TracedFunction, TracedParameter, TraceEvidence  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roots", required=True, help="comma-separated directories of the user's code")
    ap.add_argument("--out", required=True)
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    roots = tuple(os.path.realpath(r) + os.sep for r in a.roots.split(",") if r)
    seen: dict[tuple, TracedFunction] = {}
    tracer_type: list = []

    def kind(value) -> str:
        if not tracer_type:
            jax = sys.modules.get("jax")
            if jax is None:
                return "static"
            tracer_type.append(jax.core.Tracer)
        if isinstance(value, tracer_type[0]):
            concrete = getattr(value, "to_concrete_value", None)
            return "concrete" if concrete is not None and concrete() is not None else "abstract"
        return "static"

    def entry_of(frame):
        outer = None
        while frame is not None:
            co = frame.f_code
            if os.path.realpath(co.co_filename).startswith(roots) and any(
                    kind(frame.f_locals.get(n)) != "static" for n in co.co_varnames[:co.co_argcount]):
                outer = frame
            frame = frame.f_back
        return outer

    def profile(frame, event, _arg):
        if event != "call" or "jax" not in sys.modules:
            return
        co = frame.f_code
        path = os.path.realpath(co.co_filename)
        if not path.startswith(roots):
            return
        names = co.co_varnames[:co.co_argcount + co.co_kwonlyargcount]
        params = tuple(TracedParameter(n, kind(frame.f_locals.get(n))) for n in names)
        if all(p.kind == "static" for p in params):
            return
        qualname = getattr(co, "co_qualname", co.co_name)
        key = (path, co.co_firstlineno, qualname, params)
        if key in seen:
            seen[key].traces += 1
            return
        entry = entry_of(frame) or frame
        ec = entry.f_code
        seen[key] = TracedFunction(module=frame.f_globals.get("__name__", ""), qualname=qualname, file=path,
                                   line=co.co_firstlineno, parameters=list(params),
                                   entry=getattr(ec, "co_qualname", ec.co_name),
                                   entry_file=os.path.realpath(ec.co_filename), entry_line=ec.co_firstlineno)

    def write() -> None:
        sys.setprofile(None)
        TraceEvidence(functions=list(seen.values()), program=a.script).save(a.out)

    atexit.register(write)
    sys.argv = [a.script, *a.args]
    sys.setprofile(profile)
    runpy.run_path(a.script, run_name="__main__")


if __name__ == "__main__":
    main()
