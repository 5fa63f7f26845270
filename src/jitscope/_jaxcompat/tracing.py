"""Where JAX runs Python under a trace, and what a traced value is (watch's trace evidence).

Checked on JAX 0.4.35, 0.6.2, 0.8.3, 0.10.2 and 0.12. Every transformation runs the user's function
through one of two places, both looked up as module or class attributes at each use:

* ``jax._src.linear_util.WrappedFun.call_wrapped``: jit's trace (``traced_for`` ``"jit"``), ``vmap``,
  ``jvp``, the bodies of ``scan``/``cond``/``while_loop``/``fori_loop``, ``checkpoint``, ``custom_jvp``
  and, before 0.10, ``grad``/``vjp``. The wrapped function's ``debug_info.traced_for`` names the
  transformation in JAX's own words (``"jit"``, ``"vmap"``, ``"scan"``, ``"while_body"``, ...).
* ``jax._src.interpreters.ad.linearize(traceable, ...)``: ``grad``/``vjp``/``linearize`` from 0.10 on,
  which take a plain callable (before, a ``WrappedFun`` that goes through ``call_wrapped`` as well).

Neither runs on a C++ fast-path hit of a jitted call nor for an eager op, so a hook there costs nothing
in steady state. A cached trace (jit's tracing cache, a ``scan`` body's jaxpr cache) does not reach
them either. ``call_wrapped`` also runs where nothing traces (an eager ``custom_jvp`` call): the
caller tells from the values it sees (``tracer_kind``) and from ``tracing_now``.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from ._base import _hide_this_file_from_jax, _say_missing

# The attributes wrapped below; a test renames them to simulate a JAX that moved them.
_CALL_WRAPPED = "call_wrapped"

_TRACER: list[Any] = []  # [jax.core.Tracer], read once JAX is imported
_CONCRETE: list[Any] = []  # [how a tracer's concrete value is read on this JAX]


def _tracer_type() -> Any:
    if not _TRACER:
        from jax import core

        _TRACER.append(core.Tracer)
    return _TRACER[0]


def _concrete_reader() -> Any:
    """``Tracer.to_concrete_value`` (0.4.36 on: the value, or None for an abstract tracer); before, the
    tracer's abstract value is a ``ConcreteArray`` when it carries one."""
    if not _CONCRETE:
        tracer = _tracer_type()
        if hasattr(tracer, "to_concrete_value"):
            _CONCRETE.append(lambda t: t.to_concrete_value() is not None)
        else:
            from jax._src import core as private_core

            concrete_array = getattr(private_core, "ConcreteArray", None)
            _CONCRETE.append((lambda t: isinstance(t.aval, concrete_array)) if concrete_array is not None
                             else (lambda t: False))
    return _CONCRETE[0]


def tracer_kind(value: object) -> str | None:
    """``"abstract"`` for a tracer without a value (jit, vmap, a scan body: Python control flow on it
    raises), ``"concrete"`` for one that carries its value (grad or jvp outside jit), None for anything
    that is not a tracer (a Python value, a concrete array, a container: its leaves are not looked at)."""
    if not isinstance(value, _TRACER[0] if _TRACER else _tracer_type()):
        return None
    try:
        return "concrete" if _concrete_reader()(value) else "abstract"
    except Exception:  # noqa: BLE001 - an exotic tracer: no value we can read
        return "abstract"


_TRACING_NOW: list[Any] = []


def tracing_now() -> bool:
    """Whether JAX is tracing on this thread now (its current trace is not the eval trace): true inside
    jit's trace even in code that sees no tracer (a helper called with Python values). Checked on 0.4.36
    and later (``core.trace_ctx``); False where this JAX does not say."""
    if not _TRACING_NOW:
        try:
            from jax._src import core as private_core

            ctx, eval_trace = private_core.trace_ctx, private_core.eval_trace
            _TRACING_NOW.append(lambda: ctx.trace is not eval_trace)
        except (ImportError, AttributeError):
            _TRACING_NOW.append(lambda: False)
    try:
        return bool(_TRACING_NOW[0]())
    except Exception:  # noqa: BLE001
        return False


def _traced_for(fun: Any) -> str:
    dbg = getattr(fun, "debug_info", None)
    name = getattr(dbg, "traced_for", None)
    return name if isinstance(name, str) else ""


# Functions that take the user's plain callable and run it under a new trace (JAX 0.10 on), with JAX's
# name for the trace: a str, or None to read it from the ``debug_info`` argument. Before 0.10 the
# same names take a ``WrappedFun`` (and ``ad.jvp`` only returns one): those calls pass straight through.
_PLAIN_SEAMS = (
    ("jax._src.interpreters.partial_eval", "trace_to_jaxpr", None),  # jit, cond, while_loop, checkpoint, ...
    ("jax._src.interpreters.ad", "linearize", "linearize"),  # grad, vjp, linearize
    ("jax._src.interpreters.ad", "jvp", "jvp"),  # jvp
)


def _wrap_plain(mod, attr, original, traced_for, on_enter, on_exit):  # type: ignore[no-untyped-def]
    def seam(fun, *args, **kwargs):  # type: ignore[no-untyped-def]
        if hasattr(fun, _CALL_WRAPPED):  # a WrappedFun: call_wrapped sees it run, if it runs here at all
            return original(fun, *args, **kwargs)
        name = traced_for
        if name is None:
            dbg = kwargs.get("debug_info", args[1] if len(args) > 1 else None)
            name = getattr(dbg, "traced_for", "")
        token = on_enter(fun, name if isinstance(name, str) else "")
        try:
            return original(fun, *args, **kwargs)
        finally:
            on_exit(token)

    functools.update_wrapper(seam, original)
    setattr(mod, attr, seam)

    def undo() -> None:
        if getattr(mod, attr, None) is seam:
            setattr(mod, attr, original)

    return undo


def trace_hook_missing() -> str | None:
    """Why the trace hook cannot be installed on this JAX (``WrappedFun.call_wrapped`` is gone), else None.
    Never raises: the capability table and ``watch --trace-evidence`` ask before installing anything."""
    try:
        from jax._src import linear_util as lu
    except Exception as e:  # noqa: BLE001 - any import failure is a missing hook
        return f"jax._src.linear_util cannot be imported ({e})"
    if not callable(getattr(lu.WrappedFun, _CALL_WRAPPED, None)):
        return f"jax._src.linear_util.WrappedFun.{_CALL_WRAPPED} is missing"
    return None


def install_trace_hook(on_enter, on_exit):  # type: ignore[no-untyped-def]
    """Call ``on_enter(fun, traced_for) -> token`` before and ``on_exit(token)`` after JAX runs a Python
    function under a transformation (see the module docstring); returns a function that uninstalls it.

    ``fun`` is the Python callable JAX was given (the user's function, a ``functools.partial``, or a
    wrapper of JAX's or a library's around it); ``traced_for`` is JAX's name for the transformation
    (``"jit"``, ``"vmap"``, ``"scan"``, ``"linearize"``, ...; ``""`` when this JAX does not say).
    A JAX without one of the two places gets the other (and one line on stderr); never a crash.
    """
    _hide_this_file_from_jax()
    undo: list[Any] = []
    try:
        from jax._src import linear_util as lu

        original_call = getattr(lu.WrappedFun, _CALL_WRAPPED)
    except (ImportError, AttributeError) as e:
        _say_missing("trace_hook", e)
    else:
        def call_wrapped(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            token = on_enter(self.f, _traced_for(self))
            try:
                return original_call(self, *args, **kwargs)
            finally:
                on_exit(token)

        setattr(lu.WrappedFun, _CALL_WRAPPED, call_wrapped)

        def undo_call() -> None:
            if getattr(lu.WrappedFun, _CALL_WRAPPED, None) is call_wrapped:
                setattr(lu.WrappedFun, _CALL_WRAPPED, original_call)

        undo.append(undo_call)
    for module, attr, traced_for in _PLAIN_SEAMS:
        try:
            mod = importlib.import_module(module)
            original = getattr(mod, attr)
        except (ImportError, AttributeError):
            continue  # an older JAX: its transformations take a WrappedFun, seen by call_wrapped
        undo.append(_wrap_plain(mod, attr, original, traced_for, on_enter, on_exit))

    def uninstall() -> None:
        for u in reversed(undo):
            u()

    return uninstall
