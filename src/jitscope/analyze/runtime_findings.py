"""Runtime findings for ``jitscope watch``: what each trace and compile did, as coded records (JWxxx).

At every trace or compile of a user function (never on a cached call) ``RuntimeAnalyzer.observe``
gets the ``CompileEvent`` and what the probe saw (``collect.trace_probe``: the function, its jaxpr,
the exception, the side effects) and reuses inspect's analyses:

* JW101: a failed trace, explained by ``tracer_errors.explain`` at the user's line;
* JW201: trace-time side effects (print, logging, stream writes, global/nonlocal, outer containers), except
  where the effect is the point (``jaxmodel/deliberate.py``: test files, names about tracing; as lint);
* JW301 / JW302: arrays captured from globals and closures (``jaxpr_stats.captured_values``), and
  captured values rebound later (checked at each later trace and at the end);
* JW401: unrolled loops (``bloat.detect_bloat``, linear in the program's size);
* JW402: a compile slow for its size, judged on its CPU time (``compile_cost.py``), with its cause from
  the above or none.

JW403/JW404 (duplicate compiles) come from ``analyze/duplicates.py``, which the command feeds each compile
and which hands its findings back through ``add``.

JW501 (calls off the C++ dispatch fast path) is not seen at a trace: ``analyze/dispatch.py`` makes it
from ``collect/dispatch.py``'s per-function counts when the result is built.

Codes and their documentation: ``analyze/runtime_codes.py``. Nothing here may break the user's
program: every analysis is guarded, and a failure costs that finding only.
"""

from __future__ import annotations

import dis
import functools
import threading
import types
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .._format import fmt_bytes
from ..jaxmodel import fixes
from ..jaxmodel.deliberate import announces_trace, effect_expected
from ..model import CompileEvent, Fix, Location, installed_package_file
from .runtime_record import LARGE_CONSTANT_BYTES as LARGE_CONSTANT_BYTES
from .runtime_record import NOTABLE_CONSTANT_BYTES, leak_created
from .runtime_record import FindingGroup as FindingGroup
from .runtime_record import RuntimeFinding as RuntimeFinding
from .runtime_record import group_findings as group_findings
from .runtime_record import source_line as _source

BLOAT_MIN_REPEATS = 32  # a loop of a few steps is normal; these are the ones that cost compile time
BLOAT_MIN_EQUATIONS = 200
SLOW_COMPILE_SECONDS = 1.0  # CPU seconds of a backend compile (JW402: compile_cost.py)


def _function_of(fun: Any) -> types.FunctionType | None:
    while isinstance(fun, functools.partial):
        fun = fun.func
    if isinstance(fun, types.MethodType):
        fun = fun.__func__
    return fun if isinstance(fun, types.FunctionType) else None


_EFFECTS = {  # kind -> what ran (the fix is the catalogue's: jaxmodel/fixes.effect)
    "print": "print()", "stream": "{detail}()", "logging": "{detail}", "container": "mutation of {detail}",
    "global": "assignment to global '{detail}'", "nonlocal": "assignment to nonlocal '{detail}'",
    "attribute": "assignment to attribute '{detail}' of an object the call received",
}


@dataclass
class _Capture:
    """A value jit baked in, kept to notice when its global or closure cell is rebound (JW302)."""

    function: str
    name: str
    source: str  # "global" | "closure"
    holder: Any  # the globals dict, or the closure cell
    ref: Any  # a weakref to the captured object, or the object itself (scalars)
    weak: bool
    location: Location | None
    type: str
    value: str
    compile_index: int | None
    reported: bool = False

    def current(self) -> Any:
        if self.source == "global":
            return self.holder.get(self.name, _MISSING)
        if self.source == "attribute":  # holder: a weakref to the static argument (hashed by identity)
            owner = self.holder()
            return _MISSING if owner is None else vars(owner).get(self.name, _MISSING)
        try:
            return self.holder.cell_contents
        except ValueError:
            return _MISSING

    def changed(self) -> bool:
        if self.source == "attribute" and self.holder() is None:
            return False  # the object is gone: no later call can reuse its compiled program
        now = self.current()
        if self.weak:
            old = self.ref()
            return old is None or now is not old
        if now is self.ref:
            return False
        try:
            return bool(now != self.ref)
        except Exception:  # noqa: BLE001 - an array compared elementwise: a different object is a change
            return True


_MISSING = object()


class RuntimeAnalyzer:
    """Turns watched traces and compiles into ``RuntimeFinding``s (thread-safe; never raises)."""

    def __init__(self, slow_compile: float = SLOW_COMPILE_SECONDS) -> None:
        from .compile_cost import CompileCostModel

        self.slow_compile = slow_compile  # CPU seconds of the backend compile (JW402)
        self.cost = CompileCostModel()
        self.findings: list[RuntimeFinding] = []
        self.failures = 0  # analyses that raised (a jitscope bug or an exotic program); never the user's problem
        self._captures: list[_Capture] = []
        self._captured_keys: set[tuple[int, str, str]] = set()
        self._errors: dict[int, BaseException] = {}  # recent failed traces' exceptions (kept alive: ids stay unique)
        self._lock = threading.Lock()

    def _first_report(self, error: BaseException) -> bool:
        """False for an exception already reported: a jitted function failing inside another's trace
        fails both traces; the inner function (emitted first) is the one whose body raised."""
        with self._lock:
            if id(error) in self._errors:
                return False
            if len(self._errors) >= 16:
                self._errors.pop(next(iter(self._errors)))
            self._errors[id(error)] = error
            return True

    def observe(self, event: CompileEvent, kind: str, live: dict[str, Any]) -> None:
        """Analyse one trace (``kind``: ``compile``, ``failed_trace``, ``trace``, ``lowering``)."""
        # Before this trace re-captures its globals: a value rebound since the last capture is stale for
        # the programs compiled before (they keep running for their shapes).
        self.check_stale(event.timestamp)
        try:
            found = self._analyse(event, kind, live)
        except Exception:  # noqa: BLE001 - the user's program must never fail because of an analysis
            found = []
            self.failures += 1
        with self._lock:
            self.findings.extend(found)
        self.check_stale(event.timestamp)

    def add(self, finding: RuntimeFinding) -> None:
        """Keep a finding another analysis made (JW403/JW404: ``duplicates.py``, fed by the command)."""
        with self._lock:
            self.findings.append(finding)

    def check_stale(self, timestamp: float = 0.0) -> None:
        """Add a JW302 for each captured value whose global or closure cell now holds something else."""
        with self._lock:
            pending = [c for c in self._captures if not c.reported]
        for c in pending:
            try:
                if not c.changed():
                    continue
            except Exception:  # noqa: BLE001
                continue
            c.reported = True
            if c.source == "attribute":
                f = _stale_attribute(c, timestamp)
                with self._lock:
                    self.findings.append(f)
                continue
            where = f" (read at line {c.location.line})" if c.location else ""
            f = RuntimeFinding(
                "JW302", c.function,
                f"{c.source} '{c.name}' ({c.type}) was baked into {c.function}'s compiled program"
                f"{where} and has changed since; calls still use the old value until jit retraces",
                "warning", c.location,
                Fix(*_advice(fixes.pass_as_argument(c.name, stale=True)), location=c.location),
                compile_index=c.compile_index, timestamp=timestamp, source=_source(c.location),
                details={"name": c.name, "source": c.source, "type": c.type, "value_at_trace": c.value},
                evidence=f"the {c.source} '{c.name}' holds another object than the {c.type} ({c.value}) a compiled "
                         "trace read", confidence="certain")
            with self._lock:
                self.findings.append(f)

    # -- the analyses --------------------------------------------------------------------------
    def _analyse(self, event: CompileEvent, kind: str, live: dict[str, Any]) -> list[RuntimeFinding]:
        base = {"compile_index": event.index if kind == "compile" else None, "timestamp": event.timestamp,
                "seconds": event.total_seconds}
        out: list[RuntimeFinding] = []
        error = live.get("error")
        if error is not None and self._first_report(error):
            out += _failed_trace(event, error, kind, base)
        out += _effects(event, live.get("effects") or [], base)
        jaxpr, fn = live.get("jaxpr"), _function_of(live.get("fun"))
        bloat: list = []
        captured: list = []
        # JW301/JW302/JW401 are about a compiled program (its constants, its size): a trace that compiled
        # nothing (``eval_shape``, ``make_jaxpr``, ``.lower()`` alone, a failed trace) has none.
        if jaxpr is not None and kind == "compile":
            if fn is not None:
                captured = self._captured(event, fn, jaxpr, base)
                out += captured
                for owner in live.get("identity_statics") or ():
                    self._remember_state(event, fn, owner, base["compile_index"])
            bloat = _bloat(event, fn, jaxpr, base)
            out += bloat
        if kind == "compile" and jaxpr is not None:
            slow = self._slow(event, jaxpr, bloat, captured, base)
            if slow is not None:
                out.append(slow)
        return out

    def _slow(self, event: CompileEvent, jaxpr: Any, bloat: list[RuntimeFinding], captured: list[RuntimeFinding],
              base: dict) -> RuntimeFinding | None:
        """JW402 from the compile's CPU time and the run's cost model (``compile_cost.py``)."""
        from .compile_cost import ProgramSize
        from .slow_compile import constant_bytes

        size = ProgramSize(_equations(jaxpr), constant_bytes(jaxpr),
                           sum(b.details["equations"] for b in bloat),
                           [b.location.line for b in bloat if b.location is not None])
        cpu = event.compile_cpu_seconds
        verdict = self.cost.verdict(size, cpu, self.slow_compile)
        if cpu is not None:
            self.cost.observe(size.equations, cpu)
        if verdict is None:
            return None
        from .slow_compile import slow_compile_finding

        return slow_compile_finding(event, verdict, bloat, captured, self.slow_compile, base)

    def _captured(self, event: CompileEvent, fn: types.FunctionType, jaxpr: Any,
                  base: dict[str, Any]) -> list[RuntimeFinding]:
        from .jaxpr_stats import captured_values

        out = []
        values = captured_values(fn, jaxpr)
        baked = sum(c.bytes for c in values if c.kind == "array" and c.in_jaxpr)
        for c in values:
            holder = fn.__globals__ if c.source == "global" else _cell(fn, c.name)
            if holder is not None:
                self._remember(event, c, holder, base["compile_index"])
            if c.kind != "array" or not c.in_jaxpr or baked < NOTABLE_CONSTANT_BYTES:
                continue  # scalars become literals, small arrays cost nothing measurable: only stale if rebound (JW302)
            severity = "warning" if c.bytes >= LARGE_CONSTANT_BYTES else "info"
            out.append(RuntimeFinding(
                "JW301", event.function,
                f"{c.source} '{c.name}' ({c.type}, {fmt_bytes(c.bytes)}) is baked into {event.function}'s "
                f"compiled program as a constant", severity, c.location,
                Fix(*_advice(fixes.pass_as_argument(c.name)), location=c.location),
                source=_source(c.location),
                details={"name": c.name, "source": c.source, "type": c.type, "bytes": c.bytes},
                evidence=f"a constant of the compiled program ({c.type}, {fmt_bytes(c.bytes)}) is the array the "
                         f"{c.source} '{c.name}' held at trace time", confidence="certain", **base))
        return out

    def _remember(self, event: CompileEvent, c: Any, holder: Any, index: int | None) -> None:
        key = (id(holder), c.name, event.function)
        with self._lock:
            if key in self._captured_keys:
                # A retrace captures the current value again: the newest capture is the one to compare.
                self._captures = [x for x in self._captures
                                  if (id(x.holder), x.name, x.function) != key or x.reported]
            self._captured_keys.add(key)
        value = holder.get(c.name, _MISSING) if c.source == "global" else _cell_value(holder)
        if value is _MISSING:
            return
        try:
            ref, weak = weakref.ref(value), True
        except TypeError:
            ref, weak = value, False
        with self._lock:
            self._captures.append(_Capture(event.function, c.name, c.source, holder, ref, weak, c.location, c.type,
                                           c.value, index))


    def _remember_state(self, event: CompileEvent, fn: types.FunctionType, owner: Any, index: int | None) -> None:
        """A static argument hashed by identity: jit's cache key is the object, so the attributes the traced
        code names (``self.scale``) are baked in like a global; keep their values to notice a change (JW302)."""
        from .._pycode import code_objects, functions_reached

        reads: dict[str, Location] = {}  # attribute name -> the first line of the traced code that loads it
        for f in functions_reached(fn):
            for c in code_objects(f.__code__):
                for ins in dis.get_instructions(c):
                    if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and ins.argval not in reads:
                        line = getattr(ins.positions, "lineno", None) or c.co_firstlineno
                        reads[ins.argval] = Location(c.co_filename, int(line), function=c.co_qualname)
        state = vars(owner)
        marker = hex(id(owner))
        sig = event.signature
        arg = next((k for k, v in (sig.static.items() if sig is not None else ()) if marker in v), None)
        arg = arg or type(owner).__qualname__
        holder = weakref.ref(owner)
        for name in sorted(set(reads) & set(state)):
            value = state[name]
            try:
                ref, weak = weakref.ref(value), True
            except TypeError:
                ref, weak = value, False
            with self._lock:
                self._captures = [x for x in self._captures if x.reported or not (
                    x.source == "attribute" and x.holder() is owner and x.name == name and x.function == event.function)]
                self._captures.append(_Capture(event.function, name, "attribute", holder, ref, weak, reads[name],
                                               f"{arg}: {type(owner).__qualname__}", _short(value), index))


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__
        text = f"<{type(value).__qualname__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _stale_attribute(c: _Capture, timestamp: float) -> RuntimeFinding:
    arg, _, cls = c.type.partition(": ")
    now = c.current()
    a = fixes.hash_static_by_value(arg, c.name)
    return RuntimeFinding(
        "JW302", c.function,
        f"static argument '{arg}' ({cls}, hashed by identity) had {c.name}={c.value} when {c.function} was traced "
        f"and now has {c.name}={_short(now)}; calls with the same object reuse the program compiled with the old "
        "value", "warning", c.location, Fix(a.title, a.why, location=c.location),
        compile_index=c.compile_index, timestamp=timestamp, source=_source(c.location),
        details={"name": c.name, "source": "static-attribute", "argument": arg, "type": cls,
                 "value_at_trace": c.value},
        evidence=f"jit keyed {c.function}'s compiled program on the {cls} object by identity; its attribute "
                 f"'{c.name}', named by the traced code, holds another value than at trace time",
        confidence="certain")


def _advice(a: fixes.Advice) -> tuple[str, str]:
    return a.title, a.why


def _cell(fn: types.FunctionType, name: str) -> Any:
    for n, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
        if n == name:
            return cell
    return None


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


def _failed_trace(event: CompileEvent, error: BaseException, kind: str, base: dict) -> list[RuntimeFinding]:
    from .tracer_errors import error_class, explain

    if not error_class(error):
        return []  # any other exception is the program's own business (and its traceback says it)
    f = explain(error)
    details = {"error": type(error).__name__, "class": f.name, "jax_message": f.details.get("jax_message", ""),
               "trace_kind": kind}
    if f.name == "UnexpectedTracerError":  # a tracer leaked by an earlier trace: where JAX says it was made
        details["created_at"] = leak_created(str(error))
    return [RuntimeFinding("JW101", event.function, f"trace of {event.function} failed: {f.message}", "error",
                           f.location, f.fix, source=_source(f.location), details=details,
                           evidence=f"JAX raised {type(error).__name__} while tracing {event.function}",
                           confidence="certain", **base)]


def _effects(event: CompileEvent, effects: list, base: dict) -> list[RuntimeFinding]:
    counts = Counter((e.kind, e.file, e.line, e.function, e.detail) for e in effects)
    out = []
    for (kind, file, line, function, detail), n in counts.items():
        if effect_expected(file, (detail if kind in ("global", "nonlocal") else "", function, event.function)):
            continue  # a test's trace counter, a function named for tracing: the effect is the point (as lint)
        loc = Location(file, line, function=function or None) if file and line else None
        if kind == "print" and announces_trace(_source(loc)):
            continue  # print("recompiling"): announcing each trace is the point
        what = _EFFECTS.get(kind, "{detail}").format(detail=detail)
        advice = fixes.effect(kind)
        times = f"{n} time{'s' if n != 1 else ''}"
        out.append(RuntimeFinding(
            "JW201", event.function,
            f"{what} ran while tracing {event.function} ({times} in this trace); it runs once per trace, "
            "not per call", "warning", loc, Fix(advice.title, advice.why, location=loc), source=_source(loc),
            details={"kind": kind, "detail": detail, "count_per_trace": n},
            evidence=f"{what} ran {times} during this trace" + (f", at line {line}" if line else ""),
            confidence="certain", **base))
    return out


def _bloat(event: CompileEvent, fn: Any, jaxpr: Any, base: dict) -> list[RuntimeFinding]:
    from .._pycode import entry_code
    from .bloat import detect_bloat

    runs = detect_bloat(jaxpr, entry_code(fn) if fn is not None else None,
                        min_repeats=BLOAT_MIN_REPEATS, min_equations=BLOAT_MIN_EQUATIONS)
    out = []
    for r in runs:
        if r.location is not None and installed_package_file(r.location.file):
            continue  # a library's own loop: nothing the user can roll
        line = f"line {r.location.line}: " if r.location else ""
        construct = {"python_loop": "Python loop", "comprehension": "comprehension",
                     "builtin_reduction": "builtin reduction"}.get(r.kind, "repeated pattern")
        out.append(RuntimeFinding(
            "JW401", event.function,
            f"{line}{construct} x {r.repeats:,} = {r.equations:,} equations, {r.share:.0%} of {event.function}'s "
            "program", "warning", r.location, r.fix, source=_source(r.location) or r.source,
            details={"kind": r.kind, "repeats": r.repeats, "pattern_size": r.pattern_size,
                     "equations": r.equations, "share": r.share, "construct": r.construct},
            evidence=f"{r.repeats:,} repeats of the same {r.pattern_size} equations from one source line in the "
                     f"compiled program ({r.equations:,} equations, {r.share:.0%})", confidence="certain", **base))
    return out


def _equations(jaxpr: Any) -> int:
    from .jaxpr_stats import walk_bodies

    return sum(len(jx.eqns) * uses for _, jx, uses in walk_bodies(jaxpr.jaxpr))
