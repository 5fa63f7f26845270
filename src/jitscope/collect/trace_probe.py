"""What a watched trace did besides building a program: side effects, the jaxpr, the exception.

``TraceProbe`` sits in ``monitoring.probes`` while a watch asks for runtime findings. It is called
around every *slow-path* jit call (never on a C++ fast-path hit) and leaves what it saw in the
call's ``RawCompile.live`` when, and only when, that call traced:

* ``fun``: the function JAX traced; ``jaxpr``: the ``ClosedJaxpr`` it built (from the hooked call's
  return value: no second trace); ``error``: the exception a failed trace raised, even one the
  program then catches;
* ``effects``: ``EffectEvent``s (``collect.trace_effects``) for what ran while tracing: ``print``,
  ``logging``, writes to ``sys.stdout``/``sys.stderr``, mutating methods of outer lists, dicts and
  sets, and rebinding a ``global`` or ``nonlocal`` name.

Cost: a function's code is scanned once (``_Plan``); most functions need nothing more. Only a
function whose code names ``print``, a logger, ``stdout``/``stderr``, an outer container's
mutator, or stores a global/nonlocal gets, on its slow-path calls, a ``sys.setprofile`` watcher
(Python 3.11 has no ``sys.monitoring``) and a snapshot of the few names it may rebind. A profiler
the program installed itself is left alone (its effects are then not seen).
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import functools
import sys
import threading
import types
from typing import Any

from .._jaxcompat import is_user_file, jaxpr_of_call_result
from .._pycode import code_objects, functions_reached
from .trace_effects import _LOG_METHODS, _MUTATORS, EffectEvent

_CONTAINERS = (list, dict, set)
_STREAM_NAMES = {"stdout", "stderr"}
_STREAM_METHODS = {"write", "writelines"}


def _function_of(fun: Any) -> types.FunctionType | None:
    while isinstance(fun, functools.partial):
        fun = fun.func
    if isinstance(fun, types.MethodType):
        fun = fun.__func__
    return fun if isinstance(fun, types.FunctionType) else None


class _Plan:
    """What one function's code could do while traced, from one scan of its (and its same-module
    helpers') bytecode. Holds no function object: a cached plan must not keep closures alive."""

    __slots__ = ("names", "global_stores", "nonlocal_stores", "profile")

    def __init__(self, fn: types.FunctionType) -> None:
        # JAX's own jitted routines (jnp.where, ...) go through the slow path inside every trace: no scan.
        funcs = functions_reached(fn) if is_user_file(fn.__code__.co_filename) else []
        names: set[str] = set()
        self.global_stores: dict[str, tuple[str, int, str]] = {}
        self.nonlocal_stores: dict[str, tuple[str, int, str]] = {}
        for f in funcs:
            for c in code_objects(f.__code__):
                names.update(c.co_names)
                for ins in dis.get_instructions(c):
                    if ins.opname == "STORE_GLOBAL":
                        self.global_stores.setdefault(ins.argval, _site(c, ins))
                    elif ins.opname == "STORE_DEREF" and ins.argval in c.co_freevars:
                        self.nonlocal_stores.setdefault(ins.argval, _site(c, ins))
        self.names = names
        printing = "print" in names or bool(names & _STREAM_NAMES) or bool(names & _LOG_METHODS)
        self.profile = printing or bool(names & _MUTATORS)

    @property
    def empty(self) -> bool:
        return not (self.profile or self.global_stores or self.nonlocal_stores)


def _site(code: types.CodeType, ins: dis.Instruction) -> tuple[str, int, str]:
    line = getattr(getattr(ins, "positions", None), "lineno", None) or ins.starts_line or code.co_firstlineno
    return code.co_filename, int(line), code.co_qualname


class _Watch:
    """One instrumented slow-path call in progress."""

    __slots__ = ("call", "events", "globals_before", "cells", "cells_before", "watched", "old_profile", "plan",
                 "fn")

    def __init__(self, call: Any, plan: _Plan, fn: types.FunctionType) -> None:
        self.call, self.plan, self.fn = call, plan, fn
        self.events: list[EffectEvent] = []
        self.old_profile: Any = None
        g = fn.__globals__  # same-module helpers share it
        # The objects themselves (not ids): compared with ``is`` after the call, while they are still alive.
        self.globals_before = {n: g.get(n, _MISSING) for n in plan.global_stores}
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False))
        self.cells_before = {n: _cell_value(self.cells[n]) for n in plan.nonlocal_stores if n in self.cells}
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
        if event == "c_call":
            code = frame.f_code
            if arg is _PRINT:
                if is_user_file(code.co_filename):
                    self._add("print", frame, "print")
                return
            name = getattr(arg, "__name__", "")
            target = getattr(arg, "__self__", None)
            if name in _STREAM_METHODS and target is not None and (target is sys.stdout or target is sys.stderr
                                                                    or target is sys.__stdout__
                                                                    or target is sys.__stderr__):
                if is_user_file(code.co_filename):
                    stream = "stderr" if target is sys.stderr or target is sys.__stderr__ else "stdout"
                    self._add("stream", frame, f"sys.{stream}.{name}")
            elif name in _MUTATORS and target is not None and id(target) in self.watched:
                if is_user_file(code.co_filename):
                    self._add("container", frame, f"{self.watched[id(target)]}.{name}")
        elif event == "call":
            code = frame.f_code
            if code.co_name in _LOG_METHODS and code.co_filename.endswith(("logging/__init__.py",
                                                                           "logging\\__init__.py")):
                caller = frame.f_back
                if caller is not None and is_user_file(caller.f_code.co_filename) \
                        and not _in_logging(caller.f_code.co_filename):
                    self._add("logging", caller, f"logging {code.co_name}")

    def _add(self, kind: str, frame: types.FrameType, detail: str) -> None:
        self.events.append(EffectEvent(kind, frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_qualname,
                                       detail))

    def finish(self) -> list[EffectEvent]:
        """The effects seen, plus global/nonlocal rebinding found by comparing before and after."""
        g = self.fn.__globals__
        for name, before in self.globals_before.items():
            if g.get(name, _MISSING) is not before:
                self.events.append(EffectEvent("global", *self.plan.global_stores[name], name))
        for name, before in self.cells_before.items():
            if _cell_value(self.cells[name]) is not before:
                self.events.append(EffectEvent("nonlocal", *self.plan.nonlocal_stores[name], name))
        return self.events


def _in_logging(filename: str) -> bool:
    return filename.endswith(("logging/__init__.py", "logging\\__init__.py"))


_MISSING = object()
_PRINT = builtins.print


def _cell_value(cell: Any) -> Any:
    with contextlib.suppress(ValueError):
        return cell.cell_contents
    return _MISSING


class _Local(threading.local):
    def __init__(self) -> None:
        self.stack: list[_Watch] = []


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
        fn = _function_of(call.fun)
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
        if plan.profile and sys.getprofile() is None:
            w.old_profile = True
            sys.setprofile(w.profiler)

    def result(self, call: Any, out: Any) -> None:
        if call.pending is not None:
            call.pending.live["jaxpr"] = jaxpr_of_call_result(out)

    def exit(self, call: Any, exc: BaseException | None) -> None:
        stack = self._local.stack
        w = stack[-1] if stack and stack[-1].call is call else None
        if w is not None:
            stack.pop()
            if w.old_profile:
                sys.setprofile(None)
        raw = call.pending
        if raw is None:
            return  # no trace in this call (a Python-path cache hit): nothing to report
        raw.live["fun"] = call.fun
        if exc is not None and raw.failed:
            raw.live["error"] = exc
        if w is not None:
            try:
                raw.live["effects"] = w.finish()
            except Exception:  # noqa: BLE001
                pass
