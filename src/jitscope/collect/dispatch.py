"""Calls that never reach JAX's C++ dispatch fast path (the records behind JW501).

A jitted call that hits JAX's C++ dispatch cache never runs Python: nothing here sees it, and it
costs nothing. A call that misses goes through ``cache_miss``: ``_infer_params`` (where
``collect/monitoring.py``'s hook calls every probe's ``enter``/``result``/``exit``), the execution,
and finally ``_get_fastpath_data``, which decides whether the C++ cache may take the next call with
this signature (``_jaxcompat.install_fastpath_hook`` reports that decision; when it says no,
``_jaxcompat.fastpath_blockers`` reads why from the conditions JAX checked). ``DispatchProbe`` joins the two: for each outermost Python-path call of a user
function it knows the wall time from entering ``_infer_params`` to the end of ``_get_fastpath_data``,
whether anything was traced, lowered or compiled in between (``jax.monitoring`` spans on this thread),
and why the fast path was refused. Calls that traced or compiled are the compile path (watch's events);
the ones that did neither are counted here, per function, in a ``SlowPathFunction``.

Not counted: calls made with tracers (a jitted function under ``grad``/``vmap`` outside jit, or inside
another trace), ``.lower()``/``.trace()``/``eval_shape`` (they never reach ``_get_fastpath_data``), and
JAX's own jitted routines. The measured time includes watch's own bookkeeping on the Python path (a few
microseconds) and whatever part of the program's run the call waited for.
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .. import _jaxcompat as compat
from ..model import Location
from . import monitoring
from . import watch_signature as sig
from .wrappers import library_call

SAMPLES = 512  # durations kept per function for the median (the total covers every call)


@dataclass
class EffectSite:
    """An equation with a side effect in a compiled program: what it is and the user's line."""

    primitive: str  # "debug_callback", "io_callback", ...
    effect: str  # JAX's effect class: "DebugEffect", "OrderedIOEffect", ...
    location: Location | None


@dataclass
class SlowPathFunction:
    """One user function's Python-path calls that neither traced nor compiled."""

    function: str
    function_id: int
    definition: Location | None
    call_site: Location | None = None  # the user's line of the first such call
    calls: int = 0
    seconds: float = 0.0  # their total wall time (entering JAX's Python path to its end)
    samples: list[float] = field(default_factory=list)  # the first SAMPLES durations
    # Why JAX refused the fast path (``_jaxcompat.fastpath_blockers``) -> calls. An empty tuple: JAX
    # built fast-path data, yet the call came back through Python (its C++ cache did not keep it).
    blockers: dict[tuple[str, ...], int] = field(default_factory=dict)
    effects: list[EffectSite] | None = None  # the program's effectful equations, when effects block
    first_time: float = 0.0  # time.time() of the first such call
    # Per sampled call: the seconds from the end of ``_infer_params`` to the end of the Python path (the execution
    # the call waited for, where it waits: a program with effects runs synchronously on CPU, and JAX's bind around it), and
    # the host's seconds since this function's previous slow call ended (what the execution could have overlapped).
    waits: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    last_end: float | None = None

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.samples) if self.samples else 0.0


class _Local(threading.local):
    def __init__(self) -> None:
        self.depth = 0  # slow-path calls in progress on this thread (nested: calls inside a trace)
        self.t0 = 0.0
        self.spans0 = 0
        self.jaxpr: Any = None
        self.pending: tuple | None = None  # (call, t0, spans0, jaxpr, t_exit) between _infer_params and its end


class _Spans(threading.local):
    n = 0  # trace / lower / compile spans seen on this thread


_spans = _Spans()
_SPAN_EVENTS = frozenset((compat.TRACE_EVENT, compat.LOWER_EVENT, compat.COMPILE_EVENT))
_attached: list[DispatchProbe] = []
_attach_lock = threading.Lock()
_uninstall: list[Any] = []


def _on_span(event: str, start: float, end: float, **kw: Any) -> None:
    if event in _SPAN_EVENTS:
        _spans.n += 1


def _on_fastpath(effects: Any, fast: bool, executable: Any, pgle_profiler: Any) -> None:
    for p in list(_attached):
        p._on_fastpath(effects, fast, executable, pgle_profiler)


class DispatchProbe:
    """Counts, per user function, jit calls that took JAX's Python path without tracing or compiling.

    ``install()`` / ``uninstall()``; ``functions`` maps ``monitoring.function_serial`` to the
    function's ``SlowPathFunction``. Costs nothing on a C++ cache hit (nothing runs); never raises.
    """

    def __init__(self) -> None:
        self.functions: dict[int, SlowPathFunction] = {}
        self.t0: float | None = None  # time.time() at the first install: timestamps are relative to it
        self._not_user: set[int] = set()
        self._last: tuple[Any, SlowPathFunction | None] | None = None  # (jitted fun, its record): hot loops
        self._local = _Local()
        self._lock = threading.Lock()

    def install(self) -> DispatchProbe:
        from jax import monitoring as jax_monitoring

        if self.t0 is None:
            self.t0 = time.time()
        with _attach_lock:
            if self in _attached:
                return self
            _attached.append(self)
            if len(_attached) == 1:
                _uninstall.append(compat.install_fastpath_hook(_on_fastpath))
                register = getattr(jax_monitoring, "register_event_time_span_listener", None)
                if register is not None:
                    register(_on_span)
        monitoring.probes.append(self)
        return self

    def uninstall(self) -> None:
        with contextlib.suppress(ValueError):
            monitoring.probes.remove(self)
        with _attach_lock:
            if self not in _attached:
                return
            _attached.remove(self)
            if not _attached:
                while _uninstall:
                    _uninstall.pop()()
                compat.unregister_listener("span", _on_span)

    # -- monitoring probe protocol (every slow-path _infer_params) -----------------------------------
    def enter(self, call: Any) -> None:
        loc = self._local
        loc.depth += 1
        if loc.depth == 1:
            loc.pending, loc.jaxpr = None, None
            loc.spans0 = _spans.n
            loc.t0 = time.perf_counter()

    def result(self, call: Any, out: Any) -> None:
        if self._local.depth == 1:
            self._local.jaxpr = compat.jaxpr_of_call_result(out)

    def exit(self, call: Any, exc: BaseException | None) -> None:
        loc = self._local
        loc.depth = max(loc.depth - 1, 0)
        if loc.depth == 0 and exc is None and loc.jaxpr is not None:
            loc.pending = (call, loc.t0, loc.spans0, loc.jaxpr, time.perf_counter())
        loc.jaxpr = None

    # -- the end of the Python path ----------------------------------------------------------------
    def _on_fastpath(self, effects: Any, fast: bool, executable: Any, pgle_profiler: Any) -> None:
        loc = self._local
        pending = loc.pending
        if pending is None or loc.depth:
            return
        call, t0, spans0, jaxpr, t_exit = pending
        if effects is not getattr(jaxpr, "effects", None):
            return  # another program's end (pjit's eager impl): not the call that entered
        loc.pending = None
        now = time.perf_counter()
        elapsed = now - t0
        if _spans.n != spans0:
            return  # it traced, lowered or compiled: the compile path (watch's events), not this finding
        try:
            blockers = () if fast else compat.fastpath_blockers(executable, effects, pgle_profiler)
            if "transformed" in blockers:
                return  # called with tracers (under grad/vmap outside jit): not a dispatch-path problem
            self._record(call, jaxpr, blockers, elapsed, t0, now - t_exit)
        except Exception:  # noqa: BLE001 - an exotic function must never break the user's program
            pass

    def _record(self, call: Any, jaxpr: Any, blockers: tuple[str, ...], elapsed: float, t0: float = 0.0,
                waited: float = 0.0) -> None:
        last = self._last
        if last is not None and last[0] is call.fun:  # the same function as the last slow call
            rec = last[1]
            if rec is None:
                return
        else:
            rec = self._lookup(call)
            if rec is None:
                return
        fun = call.fun
        if rec.effects is None and any(b.endswith("effects") for b in blockers):
            lib = library_call(fun, call.args, call.kwargs)
            rec.effects = effect_sites(jaxpr, sig.unwrap_function(lib.fun if lib is not None else fun))
        with self._lock:
            rec.calls += 1
            rec.seconds += elapsed
            if len(rec.samples) < SAMPLES:
                rec.samples.append(elapsed)
                rec.waits.append(waited)
                # Never below 0: with several threads calling the function, another thread's call may end after
                # this one began (the host's time between calls is then none, not negative).
                rec.gaps.append(max(t0 - rec.last_end, 0.0) if rec.last_end is not None else 0.0)
            rec.last_end = t0 + elapsed
            rec.blockers[blockers] = rec.blockers.get(blockers, 0) + 1

    def _lookup(self, call: Any) -> SlowPathFunction | None:
        """The record of the user function behind this call (None: JAX's own routine)."""
        fun = call.fun
        lib = library_call(fun, call.args, call.kwargs)  # equinox.filter_jit: the user's function
        if lib is not None:
            fun = lib.fun
        serial = monitoring.function_serial(fun)
        rec = None if serial in self._not_user else self.functions.get(serial)
        if rec is None and serial not in self._not_user:
            if not sig.is_user_function(fun):
                self._not_user.add(serial)
            else:
                rec = SlowPathFunction(sig.function_name(fun), serial, sig.definition_site(fun),
                                       call_site=sig.user_call_site(), first_time=time.time())
                with self._lock:
                    rec = self.functions.setdefault(serial, rec)
        if lib is None:  # a library's jit wrapper serves many functions: not cached
            self._last = (call.fun, rec)
        return rec


def effect_sites(closed_jaxpr: Any, fn: Any = None) -> list[EffectSite]:
    """The equations with effects in a program (inner ones, not the calls that contain them), each with
    the user's line that made it; one per (primitive, line)."""
    entry = getattr(fn, "__code__", None)
    stacks = compat.StackCache(entry)
    out: dict[tuple, EffectSite] = {}
    todo = [getattr(closed_jaxpr, "jaxpr", closed_jaxpr)]
    seen: set[int] = set()
    while todo:
        jx = todo.pop()
        if id(jx) in seen:
            continue
        seen.add(id(jx))
        for eqn in jx.eqns:
            if not eqn.effects:
                continue
            subs = compat.jaxprs_in_params(eqn.params)
            if subs:
                todo.extend(subs)
                continue
            stack = stacks.stack(eqn)
            where = Location(stack[-1][0], stack[-1][2], function=stack[-1][1]) if stack else None
            effect = sorted(type(e).__name__ for e in eqn.effects)[0]
            key = (eqn.primitive.name, where.file if where else "", where.line if where else 0)
            out.setdefault(key, EffectSite(eqn.primitive.name, effect, where))
    return list(out.values())


_FAST: list[float] = []


def _plus_one(x: Any) -> Any:
    return x + 1


def _best_call(fn: Any, calls: int) -> float | None:
    """Seconds per call of ``jax.jit(fn)`` on one small array, best of 5 x ``calls``, with the settings that refuse
    the fast path off (``compat.fast_path_settings``: the program's ``jax_debug_key_reuse``... must not make the
    reference slow, whatever the program chose); None when it cannot be measured."""
    try:
        import jax
        import numpy as np

        f = jax.jit(fn)
        x = jax.device_put(np.zeros(3, np.float32))
        with compat.fast_path_settings():
            jax.block_until_ready(f(x))
            best = float("inf")
            for _ in range(5):
                t = time.perf_counter()
                for _ in range(calls):
                    y = f(x)
                jax.block_until_ready(y)
                best = min(best, (time.perf_counter() - t) / calls)
    except Exception:  # noqa: BLE001 - no reference: the finding says so
        return None
    return best


def _once(store: list[float], fn: Any, calls: int) -> float | None:
    """``_best_call`` measured once per process and kept in ``store`` (None, and nothing kept, when it fails)."""
    if not store:
        best = _best_call(fn, calls)
        if best is None:
            return None
        store.append(best)
    return store[0]


def fast_call_seconds() -> float | None:
    """Seconds of one jit call that hits JAX's C++ dispatch cache: a tiny jitted function of one small
    array, on the default backend, best of 5 x 200 calls (``_best_call``). Measured once per process (it compiles
    one tiny program); None when it cannot be measured."""
    return _once(_FAST, _plus_one, 200)


_EFFECT: list[float] = []


def _no_op() -> None:
    return None


def _plus_one_with_effect(x: Any) -> Any:
    import jax

    jax.debug.callback(_no_op)  # an unordered effect, as jax.debug.print's: the program takes the Python path
    return x + 1


def effect_call_seconds() -> float | None:
    """Seconds of a whole call of a tiny jitted program with an effect (a no-op ``jax.debug.callback``): JAX's Python
    path, the callback's round trip and a program that computes nothing. A user's call that waited longer than this
    after ``_infer_params`` (``SlowPathFunction.waits``) waited for its program's execution
    (``benchmarks/effect_call_wait.py``: on the CPU backend a program with an effect runs synchronously). Best of 5 x 50 calls, once per
    process; None when it cannot be measured."""
    return _once(_EFFECT, _plus_one_with_effect, 50)
