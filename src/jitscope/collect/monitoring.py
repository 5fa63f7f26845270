"""The capture engine: turns JAX's compile signals into one raw record per compile.

Signals, all on the compiling thread:

* ``jax.monitoring`` time-span events for trace / lower (``jaxpr_to_mlir_module``) /
  backend compile, each carrying ``fun_name``; persistent-cache events (hits, requests,
  seconds saved).
* the jit slow-path hook from ``_jaxcompat.install_jit_call_hook``: which function object
  and which arguments the current (C++-cache-missing) jit call has.
* the ``jax_explain_cache_misses`` log record, when enabled: JAX's own explanation.

How they are joined: a trace event fires inside the slow-path call whose hook frame is on
top of this thread's stack (nested jits traced inside an outer trace fire no event), so
it opens a *pending* record for that call. The lower and compile events that follow carry
``jit(<fun_name>)`` and close it. A compile with no trace (a recompile for a new device
or sharding, where JAX reuses the trace) is joined to the last slow-path call on the
thread with the same name. A compile joined to no call is the user's when the program JAX
lowered for it is built from the user's code (``programs.py``: the backward program of
``grad(jit(f))``, eager ``lax.cond``/``while_loop``/``scan``; a lowering hook keeps this thread's
latest program for that); ``jax.pmap``'s own jitted wrapper is seen through to the user's function.
Anything else (JAX's own eager-op and ``jnp`` internals) is *internal*: counted and timed, never
reported as the user's compile.

The engine is process-global (JAX's hooks are); collectors subscribe and unsubscribe.
The hook and the listeners are installed when the first collector starts and removed
when the last stops, so an idle jitscope costs nothing.
"""

from __future__ import annotations

import inspect
import logging
import re
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import _jaxcompat as compat
from ..model import ArgSignature, Location, PersistentCacheRecord
from . import persistent_cache, program_text, programs, warmup_record
from . import watch_signature as sig
from .user_function import program_method_behind
from .wrappers import LibraryCall, library_call


@dataclass
class RawCompile:
    """One trace/lower/compile of one function, before a collector numbers and explains it."""

    function: str
    module_name: str
    user: bool
    function_id: int | None = None
    definition: Location | None = None
    call_site: Location | None = None
    library_site: Location | None = None  # the installed library's frame that jitted (``watch_signature.call_sites``)
    wrapper: str | None = None  # the wrapper by jaxmodel's name where not jax.jit (``equinox.filter_jit``)
    signature: ArgSignature | None = None
    phases: dict[str, float] = field(default_factory=dict)
    phase_starts: dict[str, float] = field(default_factory=dict)  # absolute time.time()
    cache_hit: bool | None = None
    explanation: str = ""
    traced: bool = False
    transformed: bool = False  # compiled for grad/vmap/... of the jitted function (tracer arguments)
    # which one: "grad", "vmap", "jvp", ... (from the tracer classes); for a program JAX built outside the
    # call, its role: "backward", "remat", "backward+vmap", ... (programs.py)
    transform: str | None = None
    bindings: str | None = None  # what the function object binds (``watch_signature.function_bindings``)
    module: str | None = None  # the function's ``__module__`` (``watch_signature.function_module``)
    rebuild: str | None = None  # the jit call as values, JSON text (``warmup_record``): what a warm-up redoes
    failed: bool = False  # the trace raised (a tracer error, a ValueError in user code): nothing compiled
    transform_derived: bool = False  # built by JAX from a jitted function's jaxpr outside its call (programs.py)
    persistent_cache: PersistentCacheRecord | None = None  # persistent_cache.py: hit/miss, written or why not
    compile_cpu_seconds: float | None = None  # process CPU seconds of the backend compile (``_timed_compile``)
    jit_options: str | None = None  # the jit object's non-default options (``compat.jit_options_text``)
    # What probes (``collect/trace_probe.py``) saw of this call, live objects for the analyzers: "fun",
    # "jaxpr", "error", "effects". Never serialised; dropped with the record.
    live: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # The lowered MLIR module, held from the lowering to the compile (then printed and dropped), and
    # the normalised program printed from it (``program_text.py``): the user's compiles only.
    mlir_module: Any = field(default=None, repr=False, compare=False)
    program: program_text.NormalisedProgram | None = field(default=None, repr=False, compare=False)

    @property
    def kind(self) -> str:
        """What JAX did: ``compile`` (a backend compile finished: the only kind that counts),
        ``failed_trace``, ``lowering`` (traced and lowered, never compiled: ``.lower()``, or
        interrupted mid-compile) or ``trace`` (``eval_shape``, ``make_jaxpr``, ``.trace()``)."""
        if "compile" in self.phases:
            return "compile"
        if self.failed:
            return "failed_trace"
        return "lowering" if "lower" in self.phases else "trace"


class Subscriber(Protocol):
    def on_compile(self, raw: RawCompile) -> None: ...
    def on_cache_saving(self, seconds: float) -> None: ...


class _Call:
    __slots__ = ("fun", "static_argnums", "static_argnames", "args", "kwargs", "pending", "explanation",
                 "exc_at_enter", "jit_info", "serial", "transform_hint")

    def __init__(self, fun: Any, sn: tuple, sna: tuple, args: tuple, kwargs: dict, jit_info: Any = None) -> None:
        self.fun, self.static_argnums, self.static_argnames = fun, sn, sna
        self.jit_info = jit_info  # read through ``_jaxcompat.jit_options`` when the call compiles
        self.args, self.kwargs = args, kwargs
        self.pending: RawCompile | None = None
        self.explanation = ""
        # The exception being handled when the call began (a jitted call inside an ``except``
        # block): at exit, only a different one means the call itself raised.
        self.exc_at_enter = sys.exc_info()[1]
        self.serial: int | None = None  # function_serial(fun), when the explain policy asked for it
        self.transform_hint: str | None = None  # a detached call's transformation (``_detached``)


class _State(threading.local):
    def __init__(self) -> None:
        self.calls: list[_Call] = []
        self.open: RawCompile | None = None
        self.last_call: _Call | None = None  # kept until the next slow-path call on this thread
        self.cache_flag: bool | None = None
        self.program: tuple[str, Any] | None = None  # (module name, ClosedJaxpr) being lowered now
        self.lowering: list[tuple[str, tuple[str, Any] | None]] = []  # lowerings in progress, outermost first
        # Records whose lowering is in progress while JAX compiles something else (an eager op in a
        # lowering rule): resumed, in order, when that compile is done.
        self.suspended: list[RawCompile] = []
        self.mlir_module: tuple[str, Any] | None = None  # (module name, MLIR module) just lowered
        self.role_counts: dict[tuple, int] = {}  # derived programs per (function, role) since its last call
        self.untraced: _Call | None = None  # the latest untraced call of a user's function (``_note_untraced_call``)
        self.compile_cpu: float | None = None  # process CPU seconds of this thread's last backend compile


_state = _State()
_lock = threading.RLock()
_subscribers: list[Subscriber] = []
_open_records: dict[int, RawCompile] = {}  # pending, not yet emitted (any thread)
_uninstall: list[Any] = []
# Probes (``collect.trace_probe.TraceProbe``) called around every slow-path call: ``enter(call)``,
# ``result(call, out)``, ``exit(call, exc)``. Empty unless a watch asked for findings.
probes: list[Any] = []
_fun_ids: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_fun_ids_strong: dict[Any, int] = {}
_next_fun_id = [0]


def function_serial(fun: Any) -> int:
    """A number unique to the callable JAX keys its caches on, for the life of the process.

    ``id()`` is not enough: a garbage-collected lambda's id is reused by the next one. Bound
    methods are recreated on every attribute access but JAX treats equal ones as the same
    function, so they are keyed by (instance id, function).
    """
    with _lock:
        if inspect.ismethod(fun):
            key: Any = (id(fun.__self__), fun.__func__)
            n = _fun_ids_strong.get(key)
        else:
            try:
                n = _fun_ids.get(fun)
            except TypeError:
                key = id(fun)
                n = _fun_ids_strong.get(key)
        if n is None:
            _next_fun_id[0] += 1
            n = _next_fun_id[0]
            if inspect.ismethod(fun):
                _fun_ids_strong[key] = n
            else:
                try:
                    _fun_ids[fun] = n
                except TypeError:
                    _fun_ids_strong[id(fun)] = n
        return n


# --- JAX's explanation, for the first few misses of each function ---------------
# ``jax_explain_cache_misses`` compares each tracing-cache miss with every earlier version of the function
# (about 84 us each): on one function retraced N times that is quadratic, and watch would get slower the
# longer the program runs, in exactly the programs it exists for. So JAX explains (its thread-local
# setting, for that call only) the first EXPLAIN_FIRST traces of each jitted function object, and after
# that only a call whose arguments look like those of an earlier compile of it (jitscope's own reason then
# cannot name the cause: a cleared cache, a config or context change), at most EXPLAIN_UNNAMED times per
# function. Every other recompile is explained by jitscope's own reason (analyze/reasons.py), whose cost
# is flat.
EXPLAIN_FIRST = 3
EXPLAIN_UNNAMED = 5
_explain_policy = [False]  # on while a subscriber asked for explanations and the user did not turn it on
_traces: dict[int, int] = {}  # function_serial -> traces of that function object so far
_unnamed: dict[int, int] = {}  # function_serial -> explanations given past EXPLAIN_FIRST
_granted: dict[int, int] = {}  # function_serial -> calls explained as one of its first EXPLAIN_FIRST
_compiled_keys: dict[int, set] = {}  # function_serial -> argument keys (_arguments_key) of its traces


def _arguments_key(call: _Call) -> Any:
    """What jit keys a call on, roughly and cheaply: the tree, and each leaf's type, shape, dtype and weak
    type (a hashable non-array leaf, a static value, by value). Only to guess whether an earlier trace had
    the same arguments; a wrong guess costs one explanation more or less, never a wrong reason."""
    import jax

    leaves, tree = jax.tree_util.tree_flatten((call.args, call.kwargs))
    out: list[Any] = [tree]
    for x in leaves:
        shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
        if shape is not None and dtype is not None:
            out.append((type(x).__name__, tuple(shape), str(dtype), bool(getattr(x, "weak_type", False))))
        else:
            try:
                hash(x)
                out.append((type(x).__name__, x))
            except Exception:  # noqa: BLE001 - unhashable: jit refuses it as static; traced: its type
                out.append((type(x).__name__,))
    return tuple(out)


def _explain_for(call: _Call) -> bool:
    if not _explain_policy[0]:
        return False
    try:
        call.serial = serial = function_serial(call.fun)
        # Counted when granted, not when traced: the jnp routines a traced function calls (jnp.multiply is a
        # jax.jit of its own) are jit calls too, never counted as the program's traces; explained on every
        # call, each of their misses made JAX compare with every earlier version (quadratic again).
        if _granted.get(serial, 0) < EXPLAIN_FIRST:  # a grant precedes each explained trace
            with _lock:
                _granted[serial] = _granted.get(serial, 0) + 1
            return True
        if _unnamed.get(serial, 0) >= EXPLAIN_UNNAMED or serial not in _compiled_keys:
            return False
        if _arguments_key(call) in _compiled_keys[serial]:
            with _lock:
                _unnamed[serial] = _unnamed.get(serial, 0) + 1
            return True
    except Exception:  # noqa: BLE001 - an exotic callable or argument: no explanation, never a failure
        return False
    return False


def _count_trace(call: _Call) -> None:
    if call.serial is not None:
        try:
            key = _arguments_key(call)
        except Exception:  # noqa: BLE001 - see _explain_for
            key = None
        with _lock:
            _traces[call.serial] = _traces.get(call.serial, 0) + 1
            if key is not None:
                _compiled_keys.setdefault(call.serial, set()).add(key)


# --- hook callbacks (the jit slow path) -------------------------------------

def _on_enter(fun: Any, sn: tuple, sna: tuple, args: tuple, kwargs: dict, jit_info: Any = None) -> _Call:
    call = _Call(fun, sn, sna, args, kwargs, jit_info)
    _state.calls.append(call)
    _state.last_call = None
    for p in probes:
        p.enter(call)
    return call


def _on_result(call: _Call, out: Any) -> None:
    for p in probes:
        p.result(call, out)


def _on_exit(call: _Call) -> None:
    calls = _state.calls
    if calls and calls[-1] is call:
        calls.pop()
    # Called from the hook's ``finally``: an exception in flight here is the call's own failure.
    exc = sys.exc_info()[1]
    if exc is not None and exc is not call.exc_at_enter and call.pending is not None:
        call.pending.failed = True
    for p in probes:
        p.exit(call, exc if exc is not call.exc_at_enter else None)
    if call.pending is None and not calls and not _traced_arguments(call):
        # A compile may follow without a trace (new device/sharding, a trace cached by ``.lower()``).
        # Only an outermost call: a jitted call inside another's trace (``jnp.add`` in the user's
        # ``add``, or a jaxpr trace watch does not hook: checkify's) never compiles on its own, and its
        # name may collide with the user's. Keeping such a call would also keep its tracers alive past
        # their trace, which ``jax.checking_leaks()`` reports as a leak in the user's program.
        if _subscribers and _has_tracers(call):
            # Kept past its trace without its tracers: holding them would keep the eager transformation's
            # trace alive, which ``jax.checking_leaks()`` reports as a leak in the user's program.
            call = _detached(call)
            _state.last_call = call
            if call is not None:
                _note_untraced_call(call)
        else:
            _state.last_call = call


def _detached(call: _Call) -> _Call | None:
    """A copy of ``call`` whose tracers are replaced by their shape and dtype (``jax.ShapeDtypeStruct``) and
    whose transformation is named now (``transform_hint``); None when it cannot be made."""
    import jax

    def leaf(x: Any) -> Any:
        if isinstance(x, jax.core.Tracer):
            aval = x.aval
            return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=bool(getattr(aval, "weak_type", False)))
        return x

    try:
        args, kwargs = jax.tree_util.tree_map(leaf, (call.args, call.kwargs))
        out = _Call(call.fun, call.static_argnums, call.static_argnames, args, kwargs, call.jit_info)
        out.transform_hint = sig.transform_kind(call.args, call.kwargs)
        out.serial = call.serial
        return out
    except Exception:  # noqa: BLE001 - never break the user's program: then nothing is kept
        return None


def _has_tracers(call: _Call) -> bool:
    import jax

    try:
        return any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves((call.args, call.kwargs)))
    except Exception:  # noqa: BLE001
        return False


def _note_untraced_call(call: _Call) -> None:
    """A jitted call under an eager transformation (``vmap``/``grad`` of a jitted function) whose trace
    JAX ran without its monitoring event (JAX times only traces with no outer transformation): the
    batched or backward program it leads to may compile after other calls, as a program built from
    the function (``programs.py``). Kept until such a program compiles (``_remember_untraced``), so
    that program is named as the user wrote it, with its static values; a new call of a user's function
    starts its roles' numbering anew. Nothing else is computed here: under an eager ``grad`` every call
    of a jitted function takes this path."""
    try:
        if sig.is_user_function(call.fun):
            _state.untraced = call
            _state.role_counts.clear()
    except Exception:  # noqa: BLE001 - never break the user's program
        pass


def _remember_untraced() -> None:
    """Note the kept untraced call's function as its own call would (``programs.remember``), once."""
    call, _state.untraced = _state.untraced, None
    if call is not None:
        try:
            _record_from_call(call, "", traced=False)
        except Exception:  # noqa: BLE001
            pass


def _traced_arguments(call: _Call) -> bool:
    """True when an argument is a tracer of a jaxpr trace (jit's, checkify's, make_jaxpr's): the call is an
    equation of that trace and never compiles on its own. Tracers of eager transformations (grad, vmap) do
    lead to compiles and are kept. Checked only on the slow path, for calls that traced nothing."""
    import jax

    try:
        return any(isinstance(x, jax.core.Tracer) and compat.transform_name(x) == "trace"
                   for x in jax.tree_util.tree_leaves((call.args, call.kwargs)))
    except Exception:  # noqa: BLE001 - an exotic pytree: keep the call, as before
        return False


def _record_from_call(call: _Call, fun_name: str, traced: bool) -> RawCompile:
    fun, args, kwargs = call.fun, call.args, call.kwargs
    static_argnums, static_argnames = tuple(call.static_argnums or ()), tuple(call.static_argnames or ())
    lib = library_call(fun, args, kwargs)  # equinox.filter_jit
    if lib is None and (pm := _pmap_call(fun, args, kwargs)) is not None:  # pmap, and filter_pmap through it
        lib = library_call(pm.fun, pm.args, pm.kwargs) or pm
    if lib is not None:
        fun, args, kwargs, static_argnums, static_argnames = lib.fun, lib.args, lib.kwargs, (), ()
    inside = sig.wrapped_user_function(fun) if lib is None else None  # jax.jit(checkify.checkify(f))
    if inside is not None:
        lib = LibraryCall(inside[0], args, kwargs, arrays_only=False, identity=fun)
        fun = inside[0]
    user = sig.is_user_function(fun)
    # jax.jit(model.apply): a library's method (flax marks its files as not the user's) bound to an object of
    # the program's class: the program's function, defined at the class's own method.
    method = program_method_behind(fun) if not user and lib is None else None
    name = sig.function_name(fun) if method is None else method[0]
    raw = RawCompile(function=name, module_name=f"jit({fun_name})", user=user or method is not None, traced=traced)
    if lib is not None and lib.wrapper != "jax.jit":
        raw.wrapper = lib.wrapper
    if raw.user:
        # The object jit caches on: a partial, a wrapper; under a filtered wrapper, the function's identity part.
        raw.function_id = function_serial(fun if lib is None or lib.identity is None else lib.identity)
        raw.definition = sig.definition_site(fun if method is None else method[1])
        raw.module = sig.function_module(fun)
        try:
            raw.bindings = sig.function_bindings(fun)
        except Exception:  # an exotic closure must not break the user's program
            raw.bindings = None
        raw.call_site, raw.library_site = sig.call_sites()
        if lib is None and call.jit_info is not None:  # a wrapper's own jit options are the wrapper's, not the user's
            raw.jit_options = compat.jit_options_text(call.jit_info)
        try:
            options = lib.options if lib is not None and lib.arrays_only else compat.jit_options(call.jit_info)
            raw.signature = sig.call_signature(fun, static_argnums, static_argnames, args, kwargs,
                                               arrays_only=lib is not None and lib.arrays_only,
                                               bound=lib.bound if lib is not None else None, options=options)
        except Exception:  # an exotic argument must not break the user's program
            raw.signature = None
        if raw.signature is not None and not raw.transform_derived:
            raw.rebuild = _rebuild_record(call, raw.module)
        raw.explanation = call.explanation
        # Later programs JAX builds from this jaxpr (grad's backward) name the function jax.jit got:
        # equinox's wrapper for a filter_jit call, which stands for the user's function here.
        for jitted in {id(fun): fun, id(call.fun): call.fun}.values():
            programs.remember(jitted, raw.function, raw.function_id, raw.definition, raw.bindings, raw.signature)
        try:
            raw.transform = call.transform_hint or sig.transform_kind(call.args, call.kwargs)
            if inside is not None:  # jit of JAX's wrapper: a program of its own beside jit(f)
                raw.transform = "+".join(t for t in (inside[1], raw.transform) if t)
            raw.transformed = raw.transform is not None
        except Exception:
            pass
    return raw


def _rebuild_record(call: _Call, user_module: str | None) -> str | None:
    """What ``jitscope warmup`` needs to redo this call: the jit call itself, as values (``warmup_record``)."""
    try:
        return warmup_record.describe_call(call.fun, tuple(call.static_argnums or ()),
                                           tuple(call.static_argnames or ()), call.args, call.kwargs,
                                           (user_module,))
    except Exception as e:  # noqa: BLE001 - a record must never break the user's program
        return warmup_record.as_text({"why": f"not recorded: {type(e).__name__}"})


def _pmap_call(fun: Any, args: tuple, kwargs: dict) -> LibraryCall | None:
    found = compat.pmap_user_call(fun, args, kwargs)
    return None if found is None else LibraryCall(found[0], found[1], found[2], arrays_only=False, wrapper="jax.pmap")


def _same_module(lowered: str, name: str) -> bool:
    """``jit(f)`` as monitoring names it is ``jit_f`` where JAX 0.6 lowers it."""
    return lowered == name or lowered == "".join(c if c.isalnum() else "_" for c in name).rstrip("_")


def _on_lowered(module_name: str, closed_jaxpr: Any) -> None:
    if _subscribers:
        _state.lowering.append((module_name, _state.program))
        _state.program = (module_name, closed_jaxpr)


def _on_lowering_end(module_name: str) -> None:
    lowering = _state.lowering
    if lowering and lowering[-1][0] == module_name:
        _, outer = lowering.pop()
        if outer is not None and _state.program is None:
            # this lowering ran inside another's (and its event consumed the program): the outer
            # lowering's program is the one its event will look for
            _state.program = outer


def _on_module(module_name: str, module: Any) -> None:
    if _subscribers:
        _state.mlir_module = (module_name, module)


def _timed_compile(module_name: str, compile_fn: Any) -> Any:
    """Run one backend compile, keeping its process CPU seconds for the compile span that follows.

    Process, not thread, CPU time: XLA compiles on its own worker threads while the calling thread
    waits. Other processes' load inflates the wall time, not this (JW402 judges on it)."""
    start = time.process_time()
    try:
        return compile_fn()
    finally:
        _state.compile_cpu = time.process_time() - start


def _open_record(raw: RawCompile) -> None:
    prev = _state.open
    if prev is not None:
        if "compile" not in prev.phases and any(_same_module(m, prev.module_name) for m, _ in _state.lowering):
            _state.suspended.append(prev)  # JAX compiles something else while it lowers prev: resumed after
        else:
            _emit(prev)
            if _state.open is not None:  # emitting prev brought back a suspended record: it stays suspended
                _state.suspended.append(_state.open)  # (JAX 0.6/0.8 trace several helpers while lowering)
    _state.open = raw
    with _lock:
        _open_records[id(raw)] = raw


def _resume(name: str, phase: str) -> RawCompile | None:
    """The suspended record this lowering/compile event is for (a trace that ran during its lowering,
    with no compile of its own, may be the open record now: it is done, and emitted)."""
    for i in range(len(_state.suspended) - 1, -1, -1):
        r = _state.suspended[i]
        if r.module_name == name and phase not in r.phases:
            del _state.suspended[i]
            prev, _state.open = _state.open, None
            if prev is not None:
                _emit(prev)
            _state.open = r
            return r
    return None


def _emit(raw: RawCompile) -> None:
    if _state.open is raw:
        _state.open = _state.suspended.pop() if _state.suspended else None
    else:
        _state.suspended = [r for r in _state.suspended if r is not raw]
    with _lock:
        if _open_records.pop(id(raw), None) is None:
            return
        subs = list(_subscribers)
    for s in subs:
        s.on_compile(raw)


# --- monitoring listeners ---------------------------------------------------

def _on_span(event: str, start: float, end: float, **kw: Any) -> None:
    if event == compat.TRACE_EVENT:
        name = str(kw.get("fun_name", "?"))
        call = _state.calls[-1] if _state.calls else None
        if call is not None and call.pending is None:
            raw = _record_from_call(call, name, traced=True)
            call.pending = raw
            _count_trace(call)
        else:
            raw = RawCompile(function=name, module_name=f"jit({name})", user=False, traced=True)
        raw.phases["trace"] = end - start
        raw.phase_starts["trace"] = start
        _open_record(raw)
    elif event in (compat.LOWER_EVENT, compat.COMPILE_EVENT):
        name = str(kw.get("fun_name", "?"))
        phase = "lower" if event == compat.LOWER_EVENT else "compile"
        raw = _state.open
        last = _state.last_call
        last_matches = last is not None and f"jit({sig.function_name(last.fun).rsplit('.', 1)[-1]})" == name
        # The last call traced nothing (its trace was cached, e.g. after ``.lower()`` or
        # ``eval_shape``): this lowering/compile is that call's, not a still-open trace-only record's.
        new_for_last = last_matches and raw is not last.pending  # type: ignore[union-attr]
        if raw is None or raw.module_name != name or phase in raw.phases or new_for_last:
            resumed = _resume(name, phase)  # already the open record again
            if resumed is not None:
                raw = resumed
            else:
                if last_matches:
                    raw = _record_from_call(last, name[4:-1], traced=False)  # type: ignore[arg-type]
                    last.pending = raw  # type: ignore[union-attr]
                else:
                    raw = RawCompile(function=name, module_name=name, user=False)
                _open_record(raw)
        program, _state.program = _state.program, None
        module, _state.mlir_module = _state.mlir_module, None
        if not raw.user and program is not None and _same_module(program[0], name):
            # No user call traced it: JAX built it from the user's code (a backward program, eager cond).
            _remember_untraced()
            try:
                programs.attribute(raw, program[1], _state.role_counts)
            except Exception:  # noqa: BLE001 - an unexpected program: it stays JAX's, never a crash
                pass
        elif raw.user and not raw.transform_derived:
            _state.role_counts.clear()
            if raw.transform == "trace":  # traced under checkpoint's trace, compiled by its remat rule
                raw.transform = compat.derived_program_role(sys._getframe(1))
        raw.phases[phase] = end - start
        raw.phase_starts[phase] = start
        if phase == "lower" and module is not None and _same_module(module[0], name):
            raw.mlir_module = module[1]
        if phase == "compile":
            if raw.user and raw.mlir_module is not None:
                raw.program = program_text.capture(raw.mlir_module)  # the duplicate-compile fingerprint
            raw.mlir_module = None
            raw.cache_hit = _state.cache_flag if _persistent_cache_dir() else None
            raw.persistent_cache = persistent_cache.take(end - start)
            raw.compile_cpu_seconds, _state.compile_cpu = _state.compile_cpu, None
            _state.cache_flag = None
            _state.last_call = None
            _emit(raw)


def _on_event(event: str, **kw: Any) -> None:
    persistent_cache.on_event(event)
    if event == "/jax/compilation_cache/compile_requests_use_cache":
        _state.cache_flag = False
    elif event == "/jax/compilation_cache/cache_hits":
        _state.cache_flag = True


def _on_duration(event: str, seconds: float, **kw: Any) -> None:
    if event == "/jax/compilation_cache/compile_time_saved_sec":
        persistent_cache.on_saved(seconds)
        with _lock:
            subs = list(_subscribers)
        for s in subs:
            s.on_cache_saving(seconds)


# JAX's explanation names the function it is about: "never seen function:\n    f id=140... defined at
# /p/prog.py:12" or "  for f defined at /p/prog.py:12" (partial_eval.explain; pjit's in 0.6-0.8).
_EXPLAINED = re.compile(r"(?:never seen function:\s+(?P<new>\S.*?) id=\d+|\n\s*for (?P<seen>\S.*?))"
                        r"(?: defined at (?P<file>.+?):(?P<line>\d+))?\s*$", re.MULTILINE)


def _explained_function(text: str) -> tuple[str, str | None, int | None] | None:
    """(name, file, first line) of the function a ``jax_explain_cache_misses`` text is about."""
    m = _EXPLAINED.search(text)
    if m is None:
        return None
    line = m.group("line")
    return (m.group("new") or m.group("seen") or "").strip(), m.group("file"), int(line) if line else None


def _call_is(call: _Call, named: tuple[str, str | None, int | None]) -> bool:
    """Whether an explanation about ``named`` is about this call's function: the function jax.jit got,
    or the user's function a library's wrapper (equinox, pmap, checkify) carries for it."""
    name, file, line = named
    candidates = [call.fun]
    try:
        lib = library_call(call.fun, call.args, call.kwargs) or _pmap_call(call.fun, call.args, call.kwargs)
        if lib is not None:
            candidates.append(lib.fun)
        inside = sig.wrapped_user_function(call.fun)
        if inside is not None:
            candidates.append(inside[0])
    except Exception:  # noqa: BLE001 - an exotic call: compare with what jax.jit got only
        pass
    for fun in candidates:
        f = sig.unwrap_function(fun)
        code = getattr(f, "__code__", None)
        if file is not None and code is not None:
            if code.co_filename == file and code.co_firstlineno == line:
                return True
        elif getattr(f, "__name__", None) == name:
            return True
    return False


class _ExplainHandler(logging.Handler):
    """Keeps JAX's explanation with the call it is about.

    JAX logs one for every trace it caches, not only jit's own: a ``checkpoint``, ``shard_map`` or
    ``checkify`` body traced inside a jitted function logs about that body while the jitted call is
    the innermost one on this thread. The text names its function; it goes to the innermost call of
    that function on the stack, and nowhere when none is (a body's text is not its caller's)."""

    def emit(self, record: logging.LogRecord) -> None:
        if not _state.calls:
            return
        try:
            text = record.getMessage()
            named = _explained_function(text)
            for call in reversed(_state.calls):
                if named is None or _call_is(call, named):
                    break
            else:
                return
            call.explanation = text
            # JAX 0.6-0.8 log it after the trace, when this call's record already exists.
            if call.pending is not None and not call.pending.explanation:
                call.pending.explanation = call.explanation
        except Exception:
            pass


_explain_handler = _ExplainHandler(level=logging.WARNING)
_explain_saved: list[Any] = []
_null_handler = logging.NullHandler()


def _persistent_cache_dir() -> str | None:
    import jax

    return jax.config.jax_compilation_cache_dir if jax.config.jax_enable_compilation_cache else None


# --- subscription -----------------------------------------------------------

def subscribe(sub: Subscriber, explain: bool = True) -> None:
    """Start delivering compiles to ``sub``; installs the hooks for the first subscriber."""
    import jax
    from jax import monitoring

    with _lock:
        _subscribers.append(sub)
        if len(_subscribers) > 1:
            return
        # Imported here, at a shallow stack, not first inside a compile hook: CPython 3.11 (< 3.11.8) compiling
        # a module deep in JAX's stack (pytest rewrites jitscope, a plugin, on import) can fail with a
        # spurious "AST constructor recursion depth mismatch" SystemError (gh-106905), losing the record.
        warmup_record.runtime()
        _uninstall.append(compat.install_jit_call_hook(_on_enter, _on_exit, _on_result, _explain_for))
        _uninstall.append(compat.install_stage_hook(_on_lowered, None, around_compile=_timed_compile,
                                                    on_module=_on_module, on_lowering_end=_on_lowering_end))
        for name, cb in (("register_event_time_span_listener", _on_span),
                         ("register_event_listener", _on_event),
                         ("register_event_duration_secs_listener", _on_duration)):
            register = getattr(monitoring, name, None)  # feature-detected: `jitscope doctor` lists what is missing
            if register is not None:
                register(cb)
        if explain and hasattr(jax.config, "jax_explain_cache_misses"):
            loggers = [logging.getLogger(name) for name in compat.EXPLAIN_LOGGERS]
            was_on = bool(jax.config.jax_explain_cache_misses)
            _explain_saved[:] = [was_on, [lg.propagate for lg in loggers]]
            for lg in loggers:
                lg.addHandler(_explain_handler)
            if not was_on:
                # Our handler takes the text; don't spray the user's stderr with it (nor with the
                # persistent-cache lines explain mode promotes to WARNING).
                for lg in loggers:
                    lg.propagate = False
                for name in compat.EXPLAIN_NOISY_LOGGERS:
                    noisy = logging.getLogger(name)
                    _explain_saved.append((noisy, noisy.propagate))
                    noisy.propagate = False
                    noisy.addHandler(_null_handler)  # else logging's lastResort prints to stderr
                _traces.clear()  # "the first few" of this watch
                _unnamed.clear()
                _granted.clear()
                _compiled_keys.clear()
                _explain_policy[0] = True  # per call, for the first few traces of each function (_explain_for)
                _uninstall.append(compat.shield_cache_miss_explainer())  # its failure would be ours, not the program's
        # After the explain setup (it changes the same loggers); undone before it, from _uninstall.
        _uninstall.append(persistent_cache.install())


def active_subscribers() -> list[Subscriber]:
    """The collectors currently receiving compiles, outermost first."""
    with _lock:
        return list(_subscribers)


def unsubscribe(sub: Subscriber) -> None:
    """Stop delivering to ``sub``: first emits every still-pending record, then, for the last
    subscriber, removes the hooks and restores ``jax_explain_cache_misses``."""

    with _lock:
        pending = list(_open_records.values())
    for raw in pending:
        _emit(raw)
    with _lock:
        if sub in _subscribers:
            _subscribers.remove(sub)
        if _subscribers:
            return
        while _uninstall:
            _uninstall.pop()()
        for kind, cb in (("span", _on_span), ("event", _on_event), ("duration", _on_duration)):
            compat.unregister_listener(kind, cb)
        loggers = [logging.getLogger(name) for name in compat.EXPLAIN_LOGGERS]
        if _explain_handler in loggers[0].handlers:
            was_on, propagates, *noisy = _explain_saved
            for lg, propagate in zip(loggers, propagates):
                lg.removeHandler(_explain_handler)
                lg.propagate = propagate
            for noisy_logger, noisy_propagate in noisy:
                noisy_logger.propagate = noisy_propagate
                noisy_logger.removeHandler(_null_handler)
            _explain_policy[0] = False
        _state.open = None
        _state.suspended = []
        _state.lowering = []
        _state.untraced = None
        _state.last_call = None
        _state.program = None
        _state.mlir_module = None


def now() -> float:
    """The clock monitoring spans use (``time.time``)."""
    return time.time()
