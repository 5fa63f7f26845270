"""What a watched trace did besides building a program: side effects, the jaxpr, the exception.

``TraceProbe`` sits in ``monitoring.probes`` while a watch asks for runtime findings. It is called
around every *slow-path* jit call (never on a C++ fast-path hit) and leaves what it saw in the
call's ``RawCompile.live`` when, and only when, that call traced:

* ``fun``: the function JAX traced; ``jaxpr``: the ``ClosedJaxpr`` it built (from the hooked call's
  return value: no second trace); ``error``: the exception a failed trace raised, even one the
  program then catches;
* ``effects``: ``EffectEvent``s (``collect.trace_effects``) for what ran while tracing: ``print``,
  ``logging`` records, writes to ``sys.stdout``/``sys.stderr``, mutating methods of outer lists,
  dicts and sets, and rebinding a ``global`` or ``nonlocal`` name.

Cost: a function's code is scanned once (``_Plan``); most functions need nothing more. While a
function that names ``print``, ``stdout``/``stderr`` or a log method traces (its slow-path call,
nothing else), ``builtins.print``, ``sys.stdout``/``sys.stderr`` stand-ins and a root-logger handler
record those calls (no per-call cost: they only fire on a print, write or log record; logging's
last-resort output is kept). Only a function naming a mutating method of an outer list, dict or set
gets a ``sys.setprofile`` watcher (C methods cannot be wrapped; Python 3.11 has no
``sys.monitoring``), shared with the trace-evidence collector through ``profiling.py``; a profiler the
program installed itself is left alone (those effects are then not seen). Global/nonlocal rebinding is a comparison of the few names the code stores, before and after.
Not seen: log calls below the logger's level (they do nothing) and records of loggers that do not
propagate to the root.
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import functools
import logging
import sys
import threading
import types
from typing import Any

from .._jaxcompat import is_user_file, jaxpr_of_call_result
from .._pycode import code_objects, functions_reached
from . import profiling
from .trace_effects import _LOG_METHODS, _MUTATORS, EffectEvent
from .user_function import user_function as _user_function

_CONTAINERS = (list, dict, set)
_STREAM_NAMES = {"stdout", "stderr"}


def _function_of(fun: Any) -> types.FunctionType | None:
    while isinstance(fun, functools.partial):
        fun = fun.func
    if isinstance(fun, types.MethodType):
        fun = fun.__func__
    return fun if isinstance(fun, types.FunctionType) else None


class _Plan:
    """What one function's code could do while traced, from one scan of its (and its same-module
    helpers') bytecode. Holds no function object: a cached plan must not keep closures alive."""

    __slots__ = ("names", "global_stores", "nonlocal_stores", "attr_stores", "patches", "mutators")

    def __init__(self, fn: types.FunctionType) -> None:
        # JAX's own jitted routines (jnp.where, ...) go through the slow path inside every trace: no scan.
        funcs = functions_reached(fn) if is_user_file(fn.__code__.co_filename) else []
        names: set[str] = set()
        self.global_stores: dict[str, tuple[str, int, str]] = {}
        self.nonlocal_stores: dict[str, tuple[str, int, str]] = {}
        self.attr_stores: dict[str, tuple[str, int, str]] = {}  # attribute name -> first ``x.name = ...`` site
        for f in funcs:
            for c in code_objects(f.__code__):
                names.update(c.co_names)
                for ins in dis.get_instructions(c):
                    if ins.opname == "STORE_GLOBAL":
                        self.global_stores.setdefault(ins.argval, _site(c, ins))
                    elif ins.opname == "STORE_DEREF" and ins.argval in c.co_freevars:
                        self.nonlocal_stores.setdefault(ins.argval, _site(c, ins))
                    elif ins.opname == "STORE_ATTR" and c.co_name != "__init__":
                        self.attr_stores.setdefault(ins.argval, _site(c, ins))
        self.names = names
        self.patches = tuple(k for k, hit in (("print", "print" in names), ("streams", bool(names & _STREAM_NAMES)),
                                               ("logging", bool(names & _LOG_METHODS))) if hit)
        self.mutators = bool(names & _MUTATORS)

    @property
    def empty(self) -> bool:
        return not (self.patches or self.mutators or self.global_stores or self.nonlocal_stores or self.attr_stores)


def _site(code: types.CodeType, ins: dis.Instruction) -> tuple[str, int, str]:
    line = getattr(getattr(ins, "positions", None), "lineno", None) or ins.starts_line or code.co_firstlineno
    return code.co_filename, int(line), code.co_qualname


class _Watch:
    """One instrumented slow-path call in progress."""

    __slots__ = ("call", "events", "globals_before", "cells", "cells_before", "watched", "old_profile", "plan",
                 "fn", "outer", "attrs_before")

    def __init__(self, call: Any, plan: _Plan, fn: types.FunctionType) -> None:
        self.call, self.plan, self.fn = call, plan, fn
        self.events: list[EffectEvent] = []
        self.old_profile: Any = None
        self.outer: _Watch | None = None  # the watch active on this thread before this one (another session's)
        g = fn.__globals__  # same-module helpers share it
        # The objects themselves (not ids): compared with ``is`` after the call, while they are still alive.
        self.globals_before = {n: g.get(n, _MISSING) for n in plan.global_stores}
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False))
        self.cells_before = {n: _cell_value(self.cells[n]) for n in plan.nonlocal_stores if n in self.cells}
        # Objects that outlive the trace and reach it as Python objects: the attributes the code stores, as held now.
        self.attrs_before = [(obj, {n: obj.__dict__.get(n, _MISSING) for n in plan.attr_stores})
                             for obj in _outer_objects(call)] if plan.attr_stores else []
        # Outer containers: module-level and closure lists/dicts/sets the reached code names.
        self.watched: dict[int, str] = {}
        if plan.names & _MUTATORS:
            for name in plan.names:
                v = g.get(name)
                if isinstance(v, _CONTAINERS):
                    self.watched[id(v)] = name
            for name, cell in self.cells.items():
                v = _cell_value(cell)
                if isinstance(v, _CONTAINERS):
                    self.watched[id(v)] = name

    def profiler(self, frame: types.FrameType, event: str, arg: Any) -> None:
        """Only mutating methods of outer containers (C methods: nothing to patch) need a profiler."""
        if event == "c_call" and getattr(arg, "__name__", "") in _MUTATORS:
            target = getattr(arg, "__self__", None)
            if target is not None and id(target) in self.watched and is_user_file(frame.f_code.co_filename):
                self._add("container", frame, f"{self.watched[id(target)]}.{arg.__name__}")

    def _add(self, kind: str, frame: types.FrameType, detail: str) -> None:
        self.events.append(EffectEvent(kind, frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_qualname,
                                       detail))

    def add_at(self, kind: str, file: str, line: int, function: str, detail: str) -> None:
        self.events.append(EffectEvent(kind, file, line, function, detail))

    def finish(self) -> list[EffectEvent]:
        """The effects seen, plus global/nonlocal rebinding found by comparing before and after."""
        g = self.fn.__globals__
        for name, before in self.globals_before.items():
            if g.get(name, _MISSING) is not before:
                self.events.append(EffectEvent("global", *self.plan.global_stores[name], name))
        for name, before in self.cells_before.items():
            if _cell_value(self.cells[name]) is not before:
                self.events.append(EffectEvent("nonlocal", *self.plan.nonlocal_stores[name], name))
        for obj, attrs in self.attrs_before:
            for name, before in attrs.items():
                if obj.__dict__.get(name, _MISSING) is not before:
                    self.events.append(EffectEvent("attribute", *self.plan.attr_stores[name],
                                                   f"{type(obj).__name__}.{name}"))
        self.attrs_before = []
        return self.events


_MISSING = object()
_PRINT = builtins.print


def _cell_value(cell: Any) -> Any:
    with contextlib.suppress(ValueError):
        return cell.cell_contents
    return _MISSING


def _outer_objects(call: Any) -> list[Any]:
    """The Python objects a traced call receives as themselves (not flattened into tracers), which outlive the
    trace: the bound ``self`` of a jitted method and the static arguments that keep attributes in a ``__dict__``
    (classes, modules and functions excluded). An attribute stored on one of them while tracing is a trace-time
    side effect; objects built inside the trace (a module ``clone``, an nnx graph merged from the arguments) are
    not among them."""
    out: list[Any] = []
    fun = call.fun
    while isinstance(fun, functools.partial):
        fun = fun.func
    bound = getattr(fun, "__self__", None) if isinstance(fun, types.MethodType) else None
    values = [bound] if bound is not None else []
    values += [call.args[i] for i in (call.static_argnums or ()) if isinstance(i, int) and -len(call.args) <= i
               < len(call.args)]
    values += [call.kwargs[n] for n in (call.static_argnames or ()) if n in call.kwargs]
    for v in values:
        if isinstance(getattr(v, "__dict__", None), dict) and \
                not isinstance(v, (type, types.ModuleType, types.FunctionType)) and all(v is not o for o in out):
            out.append(v)
    return out


def _identity_statics(call: Any) -> list[Any]:
    """The call's static arguments that jit's cache keys by identity (the default ``__hash__``/``__eq__``)."""
    values = [call.args[i] for i in (call.static_argnums or ()) if isinstance(i, int) and -len(call.args) <= i
              < len(call.args)]
    values += [call.kwargs[n] for n in (call.static_argnames or ()) if n in call.kwargs]
    return [v for v in values if type(v).__hash__ is object.__hash__ and type(v).__eq__ is object.__eq__
            and hasattr(v, "__dict__") and not isinstance(v, (type, types.ModuleType, types.FunctionType))]


class _Local(threading.local):
    def __init__(self) -> None:
        self.stack: list[_Watch] = []


class _Active(threading.local):
    def __init__(self) -> None:
        self.watch: _Watch | None = None  # the instrumented trace running on this thread
        self.in_print = False


_active = _Active()
_patch_lock = threading.Lock()
_patch_depth = {"print": 0, "streams": 0, "logging": 0}


def _print(*args: Any, **kwargs: Any) -> None:
    """``builtins.print`` while a function that names it traces: records the call, then prints."""
    w = _active.watch
    if w is None:
        return _PRINT(*args, **kwargs)
    frame = sys._getframe(1)
    if is_user_file(frame.f_code.co_filename):
        w.add_at("print", frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_qualname, "print")
    _active.in_print = True  # its writes to sys.stdout are this print, not a second effect
    try:
        return _PRINT(*args, **kwargs)
    finally:
        _active.in_print = False


class _Stream:
    """Stands in for ``sys.stdout``/``sys.stderr`` while a function that names them traces."""

    def __init__(self, stream: Any, name: str) -> None:
        self._jitscope_stream, self._jitscope_name = stream, name

    def _seen(self, method: str) -> None:
        w = _active.watch
        if w is not None and not _active.in_print:
            frame = sys._getframe(2)
            if is_user_file(frame.f_code.co_filename):
                w.add_at("stream", frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_qualname,
                         f"sys.{self._jitscope_name}.{method}")

    def write(self, text: str) -> int:
        self._seen("write")
        return self._jitscope_stream.write(text)

    def writelines(self, lines: Any) -> None:
        self._seen("writelines")
        return self._jitscope_stream.writelines(lines)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jitscope_stream, name)


class _LogHandler(logging.Handler):
    """On the root logger while a function that names a log method traces: the record carries the
    user's file and line (logging's own ``findCaller``). Keeps logging's last-resort output."""

    def emit(self, record: logging.LogRecord) -> None:
        w = _active.watch
        if w is not None and is_user_file(record.pathname):
            w.add_at("logging", record.pathname, record.lineno, record.funcName, f"logging {record.levelname.lower()}")
        # With this handler on the root, logging would skip its last resort (stderr for warnings when the
        # program configured no handler): call it as logging would have.
        last = logging.lastResort
        if last is not None and record.levelno >= last.level and not _other_handlers(record.name):
            last.handle(record)


_log_handler = _LogHandler(level=logging.NOTSET)


def _other_handlers(name: str) -> bool:
    c: logging.Logger | None = logging.getLogger(name)
    while c is not None:
        if any(h is not _log_handler for h in c.handlers):
            return True
        if not c.propagate:
            return False
        c = c.parent  # type: ignore[assignment]
    return False


def _patch(kinds: tuple[str, ...], step: int) -> None:
    """Install (``step`` +1) or remove (-1) the stand-ins for ``kinds``; counted, so nested and
    concurrent traces share one installation, and restored only if still ours."""
    if not kinds:
        return
    with _patch_lock:
        for kind in kinds:
            _patch_depth[kind] += step
            if (step > 0 and _patch_depth[kind] != 1) or (step < 0 and _patch_depth[kind] != 0):
                continue
            if kind == "print":
                if step > 0:
                    builtins.print = _print
                elif builtins.print is _print:
                    builtins.print = _PRINT
            elif kind == "streams":
                for name in ("stdout", "stderr"):
                    cur = getattr(sys, name)
                    if step > 0 and cur is not None and not isinstance(cur, _Stream):
                        setattr(sys, name, _Stream(cur, name))
                    elif step < 0 and isinstance(cur, _Stream):
                        setattr(sys, name, cur._jitscope_stream)
            elif step > 0:
                logging.getLogger().addHandler(_log_handler)
            else:
                logging.getLogger().removeHandler(_log_handler)


class TraceProbe:
    """Collects, for each slow-path call that traces, the function, its jaxpr, its exception and its
    trace-time side effects into ``RawCompile.live``. Install with ``install()``; ``uninstall()``."""

    def __init__(self, effects: bool = True) -> None:
        self.effects = effects
        self._plans: dict[int, tuple[types.CodeType, _Plan]] = {}  # id(code) -> (code, plan): no code hashing
        self._local = _Local()
        self._lock = threading.Lock()

    def install(self) -> TraceProbe:
        from . import monitoring

        monitoring.probes.append(self)
        return self

    def uninstall(self) -> None:
        from . import monitoring

        with contextlib.suppress(ValueError):
            monitoring.probes.remove(self)

    # -- called by collect.monitoring -----------------------------------------------------------
    def enter(self, call: Any) -> None:
        if not self.effects or self._local.stack:
            return  # inside an instrumented trace already: the outer watcher sees the inner body
        try:
            fn = _user_function(call)
        except Exception:  # noqa: BLE001 - an exotic wrapper: no effects, never a broken program
            return
        if fn is None:
            return
        try:
            code = fn.__code__
            hit = self._plans.get(id(code))
            if hit is not None and hit[0] is code:
                plan = hit[1]
            else:
                plan = _Plan(fn)
                with self._lock:
                    self._plans[id(code)] = (code, plan)
            if plan.empty:
                return
            w = _Watch(call, plan, fn)
        except Exception:  # noqa: BLE001 - an exotic function: no effects, never a broken program
            return
        self._local.stack.append(w)
        w.outer, _active.watch = _active.watch, w
        _patch(plan.patches, +1)
        if w.watched:
            profiler = w.profiler
            if profiling.add(profiler):
                w.old_profile = profiler

    def result(self, call: Any, out: Any) -> None:
        raw = call.pending
        if raw is not None and raw.user:
            raw.live["jaxpr"] = jaxpr_of_call_result(out)

    def exit(self, call: Any, exc: BaseException | None) -> None:
        stack = self._local.stack
        w = stack[-1] if stack and stack[-1].call is call else None
        if w is not None:
            stack.pop()
            if w.old_profile is not None:
                profiling.remove(w.old_profile)
            _patch(w.plan.patches, -1)
            _active.watch = w.outer
        raw = call.pending
        if raw is None or not raw.user:
            return  # no trace in this call (a Python-path cache hit), or JAX's own routine: nothing to report
        try:  # the user's function behind a library wrapper: its globals, closure and lines
            raw.live["fun"] = (w.fn if w is not None else _user_function(call)) or call.fun
        except Exception:  # noqa: BLE001
            raw.live["fun"] = call.fun
        if exc is not None and raw.failed:
            raw.live["error"] = exc
        with contextlib.suppress(Exception):  # static arguments hashed by identity: their state can go stale (JW302)
            raw.live["identity_statics"] = _identity_statics(call)
        if w is not None:
            try:
                raw.live["effects"] = w.finish()
            except Exception:  # noqa: BLE001
                pass
