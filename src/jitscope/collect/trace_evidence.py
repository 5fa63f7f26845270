"""Trace evidence: which of the program's functions ran while JAX traced, and what each parameter was.

``TraceEvidenceCollector`` records, between ``start()`` and ``stop()``, every function of the program's
own files (``_jaxcompat.is_program_file``: not installed packages, not the standard library, not
jitscope) that starts while JAX runs Python under a transformation, with the kind of each parameter
on that call (``abstract`` tracer, ``concrete`` tracer, ``static`` value: ``_jaxcompat.tracer_kind``),
the entry point whose trace ran it and the transformation (``model.TracedFunction``).
``jitscope lint --evidence`` reads the result (``model.TraceEvidence``).

When it costs anything: only while a trace runs. ``_jaxcompat.install_trace_hook`` says when JAX starts
and ends running Python under a transformation (jit's trace, vmap, grad, jvp, the bodies of
scan/cond/while_loop, checkpoint); a jitted call that hits JAX's C++ cache, an eager op, and a cached
trace never get there. Inside such a region, function starts on that thread are watched:

* Python 3.12 and later: ``sys.monitoring`` ``PY_START`` events, turned on while some thread traces;
  a code object outside the program is disabled at its first start (``DISABLE``), so JAX's own
  functions cost nothing after their first call.
* Python 3.11: ``sys.setprofile`` on the tracing thread only (shared with the trace probe through
  ``profiling.py``); each call then costs one short Python callback (a dict lookup by file name).

Per code object, its parameter names and location are computed once. A function that sees no
tracer is recorded only while JAX's current trace is not the eval trace (``_jaxcompat.tracing_now``):
a ``custom_jvp`` function called eagerly runs through the same place without tracing anything.
An eager transformation (vmap, grad outside jit: their Python runs on every call) stops being
watched for a function after ``QUIET_TRACES`` traces in a row that recorded nothing new; a caching
one (jit, a scan body) is watched on every trace, since every such trace is a compile or a new body.

Which entry point and transformation: the outermost region on the thread that caches its trace
(jit, pmap, a lax body, checkpoint: python_runs other than ``each_call`` in ``jaxmodel``), else the
outermost region. Its entry is the function JAX was given when that is the program's (seen through
``functools.partial``, bound methods and ``__wrapped__``), else the first program function the trace
ran (``equinox.filter_jit`` and ``flax.nnx.jit`` hand JAX a wrapper of their own).
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
import threading
import types
from typing import Any

from .. import _jaxcompat as compat
from ..jaxmodel import known
from ..model import TracedFunction, TracedParameter, TraceEvidence
from . import profiling
from .trace_leaves import abstract_leaves

QUIET_TRACES = 3  # traces in a row that recorded nothing before an eager entry is no longer watched
_MISSING = object()
_serials = itertools.count(1)


class _Code:
    """What one code object needs, computed once: its parameters, its place, its module."""

    __slots__ = ("code", "params", "qualname", "file", "line", "module")

    def __init__(self, code: types.CodeType, module: str) -> None:
        self.code = code
        n = code.co_argcount + code.co_kwonlyargcount
        n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
        self.params = code.co_varnames[:n]
        self.qualname = getattr(code, "co_qualname", code.co_name)
        self.file = os.path.realpath(code.co_filename)
        self.line = code.co_firstlineno
        self.module = module


class _Region:
    """One run of Python under a transformation on one thread."""

    __slots__ = ("transform", "caching", "entry", "serial", "decisive", "active", "quiet_key", "new")

    def __init__(self, transform: str, caching: bool, entry: tuple[str, str, int] | None,
                 parent: _Region | None, active: bool, quiet_key: Any) -> None:
        self.transform, self.caching, self.entry = transform, caching, entry
        self.serial = parent.serial if parent is not None else next(_serials)
        if parent is None:
            self.decisive: _Region = self
        elif parent.decisive.caching or not caching:
            self.decisive = parent.decisive
        else:
            self.decisive = self
        self.active = active
        self.quiet_key = quiet_key
        self.new = False


class _Thread(threading.local):
    def __init__(self) -> None:
        self.stack: list[_Region] = []
        self.watching = False


def _transform(traced_for: str) -> tuple[str, bool]:
    """(jaxmodel qualified name or "", caches its trace) for JAX's own name of a transformation."""
    t = known.by_traced_for(traced_for)
    if t is None:
        return "", False
    return t.qualname, t.python_runs != "each_call"


def _unwrap(fun: Any) -> types.FunctionType | None:
    """The Python function behind what JAX was given: through partials, bound methods, ``__wrapped__``
    and (for JAX's and libraries' own argument closures) a closure holding one function."""
    for _ in range(6):
        if isinstance(fun, functools.partial):
            fun = fun.func
        elif isinstance(fun, types.MethodType):
            fun = fun.__func__
        elif isinstance(fun, types.FunctionType):
            if _program_file(fun.__code__.co_filename):
                return fun
            inner = getattr(fun, "__wrapped__", None)
            if inner is None:
                cells = [c for c in (fun.__closure__ or ()) if _cell_callable(c)]
                if len(cells) != 1:
                    return fun
                inner = cells[0].cell_contents
            fun = inner
        elif getattr(fun, "__wrapped__", None) is not None:
            fun = fun.__wrapped__
        else:
            return None
    return fun if isinstance(fun, types.FunctionType) else None


def _program_file(filename: str) -> bool:
    """A real source file of the program's own (``<string>``, ``<stdin>``, notebook cells: no file lint can read)."""
    return not filename.startswith("<") and compat.is_program_file(filename)


def _cell_callable(cell: Any) -> bool:
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return isinstance(v, (types.FunctionType, functools.partial, types.MethodType))


class _Engine:
    """Process-wide: the trace hook, the per-thread regions and the watching, shared by every collector."""

    def __init__(self) -> None:
        self.collectors: list[TraceEvidenceCollector] = []
        self.lock = threading.RLock()
        self.local = _Thread()
        self.uninstall: Any = None
        self.codes: dict[int, _Code] = {}  # id(code) -> its _Code (which holds the code: the id stays its own)
        self.files: dict[str, bool] = {}
        self.quiet: dict[Any, int] = {}  # eager entries: traces in a row that recorded nothing
        self.tracer: Any = None
        self.tool: int | None = None  # sys.monitoring tool id (3.12+), once taken
        self.watching_threads: dict[int, int] = {}
        self.failures = 0

    # -- subscription --------------------------------------------------------------------------
    def subscribe(self, collector: TraceEvidenceCollector) -> None:
        with self.lock:
            if collector in self.collectors:
                return
            self.collectors.append(collector)
            if self.uninstall is None:
                import jax.core

                self.tracer = jax.core.Tracer
                self.uninstall = compat.install_trace_hook(self.enter, self.exit)

    def unsubscribe(self, collector: TraceEvidenceCollector) -> None:
        with self.lock:
            if collector in self.collectors:
                self.collectors.remove(collector)
            if not self.collectors and self.uninstall is not None:
                self.uninstall()
                self.uninstall = None

    # -- the trace hook ------------------------------------------------------------------------
    def enter(self, fun: Any, traced_for: str) -> _Region | None:
        if not self.collectors:
            return None
        try:
            loc = self.local
            stack = loc.stack
            parent = stack[-1] if stack else None
            transform, caching = _transform(traced_for)
            fn = _unwrap(fun)
            entry = None
            if fn is not None and _program_file(fn.__code__.co_filename):
                info = self.code_info(fn.__code__, fn.__globals__)
                entry = (info.qualname, info.file, info.line)
            quiet_key = None
            if parent is None:
                active = True
                if not caching:  # an eager transformation: its Python runs on every call
                    quiet_key = (fn.__code__ if fn is not None else None, traced_for)
                    active = self.quiet.get(quiet_key, 0) < QUIET_TRACES
            else:
                active = parent.active or caching
            region = _Region(transform, caching, entry, parent, active, quiet_key)
            stack.append(region)
            self._watch(loc, active)
            return region
        except Exception:  # noqa: BLE001 - evidence must never break the program's trace
            self.failures += 1
            return None

    def exit(self, region: _Region | None) -> None:
        if region is None:
            return
        try:
            loc = self.local
            stack = loc.stack
            if stack and stack[-1] is region:
                stack.pop()
            elif region in stack:  # an exception skipped inner exits: drop them too
                del stack[stack.index(region):]
            if region.quiet_key is not None:
                self.quiet[region.quiet_key] = 0 if region.new else self.quiet.get(region.quiet_key, 0) + 1
            elif region.new and stack:
                stack[-1].new = True
            self._watch(loc, bool(stack) and stack[-1].active)
        except Exception:  # noqa: BLE001
            self.failures += 1

    # -- watching function starts on this thread -----------------------------------------------
    def _watch(self, loc: _Thread, on: bool) -> None:
        if on == loc.watching:
            return
        loc.watching = on
        if sys.version_info >= (3, 12) and self._monitoring():
            self._monitor_thread(on)
        elif on:
            loc.watching = profiling.add(self.profile)
        else:
            profiling.remove(self.profile)

    def _monitoring(self) -> bool:
        if self.tool is not None:
            return self.tool >= 0
        mon = sys.monitoring  # type: ignore[attr-defined]
        for tool in (4, 3, 2, 0):
            try:
                mon.use_tool_id(tool, "jitscope")
            except ValueError:  # taken (a debugger, coverage, a profiler)
                continue
            mon.register_callback(tool, mon.events.PY_START, self.on_start)
            self.tool = tool
            return True
        self.tool = -1
        return False

    def _monitor_thread(self, on: bool) -> None:
        mon = sys.monitoring  # type: ignore[attr-defined]
        ident = threading.get_ident()
        with self.lock:
            before = bool(self.watching_threads)
            if on:
                self.watching_threads[ident] = self.watching_threads.get(ident, 0) + 1
            else:
                n = self.watching_threads.get(ident, 0) - 1
                if n > 0:
                    self.watching_threads[ident] = n
                else:
                    self.watching_threads.pop(ident, None)
            after = bool(self.watching_threads)
            if before != after:
                mon.set_events(self.tool, mon.events.PY_START if after else 0)

    def on_start(self, code: types.CodeType, _offset: int) -> Any:
        """sys.monitoring PY_START (3.12+)."""
        flag = self.files.get(code.co_filename)
        if flag is None:
            flag = self.files[code.co_filename] = _program_file(code.co_filename)
        if not flag:
            return sys.monitoring.DISABLE  # type: ignore[attr-defined]
        if threading.get_ident() in self.watching_threads:
            self.saw(sys._getframe(1), code)
        return None

    def profile(self, frame: Any, event: str, _arg: Any) -> None:
        """sys.setprofile (3.11): only calls into the program's files go further."""
        if event != "call":
            return
        code = frame.f_code
        flag = self.files.get(code.co_filename)
        if flag is None:
            flag = self.files[code.co_filename] = _program_file(code.co_filename)
        if flag:
            self.saw(frame, code)

    # -- one call of a program function under a trace ------------------------------------------
    def code_info(self, code: types.CodeType, globals_: dict[str, Any]) -> _Code:
        info = self.codes.get(id(code))
        if info is None or info.code is not code:
            info = _Code(code, str(globals_.get("__name__", "")))
            self.codes[id(code)] = info
        return info

    def saw(self, frame: Any, code: types.CodeType) -> None:
        try:
            stack = self.local.stack
            if not stack:
                return
            info = self.code_info(code, frame.f_globals)
            values = frame.f_locals
            tracer = self.tracer
            kinds = []
            leaves = []
            traced = False
            for name in info.params:
                v = values.get(name, _MISSING)
                if isinstance(v, tracer):
                    kinds.append(compat.tracer_kind(v) or "abstract")
                    leaves.append(())
                    traced = True
                else:
                    kinds.append("static")
                    found = tuple(abstract_leaves(v, tracer))
                    leaves.append(found)
                    traced = traced or bool(found)
            if not traced and not compat.tracing_now():
                return  # run through a transformation's path without tracing (an eager custom_jvp)
            region = stack[-1]
            top = region.decisive
            if top.entry is None:
                top.entry = (info.qualname, info.file, info.line)
            key = (info.file, info.line, info.qualname, tuple(kinds), top.entry, top.transform, tuple(leaves))
            for c in self.collectors:
                if c.add(key, info, top, region.serial):
                    region.new = True
        except Exception:  # noqa: BLE001 - evidence must never break the program's trace
            self.failures += 1


_engine = _Engine()


class TraceEvidenceCollector:
    """Records the program's functions that run while JAX traces, between ``start()`` and ``stop()``."""

    def __init__(self, program: str = "") -> None:
        self.program = program
        self._records: dict[tuple, list[Any]] = {}  # key -> [TracedFunction, last trace serial]
        self._lock = threading.Lock()
        self.running = False

    @staticmethod
    def unavailable() -> str | None:
        """Why this JAX cannot give trace evidence (its trace hook is missing), else None."""
        return compat.trace_hook_missing()

    def start(self) -> TraceEvidenceCollector:
        _engine.subscribe(self)
        self.running = True
        return self

    def stop(self) -> None:
        if self.running:
            _engine.unsubscribe(self)
            self.running = False

    def add(self, key: tuple, info: _Code, region: _Region, serial: int) -> bool:
        """Count one call; True when it made a new record."""
        with self._lock:
            hit = self._records.get(key)
            if hit is not None:
                if hit[1] != serial:
                    hit[0].traces += 1
                    hit[1] = serial
                return False
            qualname, file, line = region.entry or ("", "", 0)
            params = [TracedParameter(n, k, leaves) for n, k, leaves in zip(info.params, key[3], key[6], strict=True)]
            record = TracedFunction(module=info.module, qualname=info.qualname, file=info.file, line=info.line,
                                    parameters=params, entry=qualname, entry_file=file, entry_line=line,
                                    transform=region.transform)
            self._records[key] = [record, serial]
            return True

    def evidence(self) -> TraceEvidence:
        """What was recorded so far, in file and line order."""
        with self._lock:
            functions = [r[0] for r in self._records.values()]
        functions.sort(key=lambda f: (f.file, f.line, f.qualname, f.entry_file, f.entry_line,
                                      [p.kind for p in f.parameters]))
        return TraceEvidence(functions=functions, program=self.program)

    def __len__(self) -> int:
        return len(self._records)


def failures() -> int:
    """Errors swallowed while recording (a bug of jitscope's, never the program's): for tests."""
    return _engine.failures
