"""Where JAX meets the running program outside jit's compile path: its exception boundary, host reads of
arrays, PRNG key checks, and the trace context that is part of jit's cache key (watch's taxonomy findings,
docs/pitfalls.md).

Each hook is installed once for all its subscribers, feature-detected, and a JAX that moved it gets a
no-op (the findings that need it are then not made), never a crash. Each costs nothing on the paths it
does not touch: the boundary hook runs only when an exception leaves a JAX API, the host-read hook only
when a ``jax.Array`` is copied to a NumPy value, the key hook only in ``jax.random`` calls (Python code
that already costs microseconds). Checked on JAX 0.10.2 (and 0.8.3, 0.6.2 where noted).

* ``install_boundary_hook(on_error)``: JAX's public APIs (every ``jax.jit`` call's slow path, ``jnp``
  functions, transformations) are wrapped by ``traceback_util.api_boundary``, whose ``except`` clause calls
  the module-level ``_filtering_mode()`` once per boundary an exception crosses, before re-raising it.
  Wrapping that function sees the exception (``sys.exc_info()``) and the frame that called the API,
  whether the program catches the exception later or not. ``x[i] = v`` on an array or tracer raises from
  ``__setitem__`` without crossing a boundary; a wrapper reports it the same way. Not seen: errors JAX
  raises from C++ before any of its Python runs (a non-hashable static argument of a jitted function:
  ``collect/cpp_raises`` sees those on Python 3.12+).
* ``install_host_read_hook(on_read)``: ``ArrayImpl._value`` is how host reads of a ``jax.Array``
  (``float``, ``int``, ``bool``, ``.tolist()``, ``print``, ``np.asarray`` off CPU) get their NumPy value,
  waiting for the computation that produces it. On CPU NumPy reads through the buffer protocol (C++, no
  Python: ``np.asarray(x)`` is not seen), so ``ArrayImpl.item`` is wrapped too, and ``block_until_ready`` (a
  wait with no copy, reported as ``"wait"``). ``device_get_leaves(frame)``: how many leaves a
  ``jax.device_get`` call fetches in one batched transfer.
* ``install_host_callback_hook(on_call)``: a compiled program runs each ``jax.pure_callback`` through
  ``jax._src.callback.pure_callback_impl`` (looked up as a module global at each run by the lowered
  callback), on the host, once per execution of the callback (per iteration inside a compiled loop). On
  CPU it runs on the thread that called the jitted function, so the program's call is on the stack.
* ``install_host_transfer_hook(on_transfer)``: the program's eager conversions of host data to device arrays,
  ``jax.numpy.asarray``, ``jax.numpy.array`` and ``jax.device_put`` (the public attributes, looked up by the
  program at each call; JAX's own modules call the private functions and are not seen): the wrappers call the
  original with the same arguments and return its result, and time the call only when an argument is a NumPy
  array of at least ``TRANSFER_MIN_BYTES`` outside a trace (a trace makes it a constant, not a copy). Not seen:
  a name bound before the hook was installed (``from jax.numpy import asarray`` before ``jitscope.watch()``),
  and the NumPy arguments of jitted calls (copied in C++: ``collect/host_args``).
* ``install_key_check_hook(on_key)``: every ``jax.random`` function checks its key with
  ``jax._src.random.core._check_prng_key(name, key)`` (looked up as a module global at each call).
* ``install_key_seed_hook(on_seed)``: ``jax.random.key``/``PRNGKey``, the public attributes, wrapped while
  installed (the program looks them up at each call).
* ``trace_context()``: ``(names, values)`` of JAX's trace context, the configuration jit adds to its cache
  key (``jax_default_device``, ``jax_enable_x64``, the mesh, ...); None where JAX cannot name them.
* ``staging_now()``: whether this thread is inside a jit-style trace (a ``DynamicJaxprTrace``).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ._base import _say_missing

_SUBSCRIBERS: dict[str, list[Callable[..., None]]] = {"boundary": [], "host_read": [], "key_check": [],
                                                      "host_callback": [], "host_transfer": [], "key_seed": []}
_UNINSTALL: dict[str, Callable[[], None]] = {}


def _subscribe(kind: str, callback: Callable[..., None], install: Callable[[], Callable[[], None] | None]
               ) -> Callable[[], None]:
    subs = _SUBSCRIBERS[kind]
    if kind not in _UNINSTALL:
        uninstall = install()
        if uninstall is None:
            return lambda: None
        _UNINSTALL[kind] = uninstall
    subs.append(callback)

    def remove() -> None:
        if callback in subs:
            subs.remove(callback)
        if not subs and kind in _UNINSTALL:
            _UNINSTALL.pop(kind)()

    return remove


def _notify(kind: str, *args: Any) -> None:
    for cb in list(_SUBSCRIBERS[kind]):
        try:
            cb(*args)
        except Exception:  # noqa: BLE001 - a recorder must never change what the program sees
            pass


# --- JAX's exception boundary -------------------------------------------------------------------------
def install_boundary_hook(on_error: Callable[[BaseException, Any], None]) -> Callable[[], None]:
    """Call ``on_error(exc, caller_frame)`` for each exception leaving a JAX API boundary (innermost
    boundary first; an exception crossing several is passed once per boundary, the same object). Returns
    the uninstaller."""
    return _subscribe("boundary", on_error, _install_boundary)


def _install_boundary() -> Callable[[], None] | None:
    try:
        from jax._src import traceback_util

        original = traceback_util._filtering_mode
    except (ImportError, AttributeError) as e:
        _say_missing("boundary_hook", e)
        return None

    def _filtering_mode():  # type: ignore[no-untyped-def]
        exc = sys.exc_info()[1]
        if exc is not None and _SUBSCRIBERS["boundary"]:
            _notify("boundary", exc, sys._getframe(2))
        return original()

    traceback_util._filtering_mode = _filtering_mode
    undo_setitem = _install_setitem()

    def uninstall() -> None:
        if traceback_util._filtering_mode is _filtering_mode:
            traceback_util._filtering_mode = original
        undo_setitem()

    return uninstall


def _install_setitem() -> Callable[[], None]:
    """In-place item assignment (``x[i] = v``) raises from ``__setitem__`` without crossing an API boundary:
    the boundary's subscribers see it from a wrapper that re-raises it unchanged (Refs, which support it,
    pass straight through)."""
    try:
        from jax._src import array, core

        classes = [c for c in (array.ArrayImpl, core.Tracer) if "__setitem__" in c.__dict__]
    except (ImportError, AttributeError):
        return lambda: None
    saved = []
    for cls in classes:
        original = cls.__dict__["__setitem__"]

        def __setitem__(self, idx, value, _original=original):  # type: ignore[no-untyped-def]
            try:
                return _original(self, idx, value)
            except Exception as e:
                if _SUBSCRIBERS["boundary"]:
                    _notify("boundary", e, sys._getframe(1))
                raise

        try:
            cls.__setitem__ = __setitem__
        except (TypeError, AttributeError):
            continue
        saved.append((cls, original, __setitem__))

    def undo() -> None:
        for cls, original, wrapper in saved:
            if cls.__dict__.get("__setitem__") is wrapper:
                cls.__setitem__ = original

    return undo


# --- host reads of jax.Array --------------------------------------------------------------------------
def install_host_read_hook(on_read: Callable[[Any, float, bool, Any], None]) -> Callable[[], None]:
    """Call ``on_read(array, seconds, was_ready, caller_frame)`` after each host read of a ``jax.Array``
    (``seconds``: how long the read took, waiting included; ``was_ready``: the value was computed before the
    read began). Returns the uninstaller."""
    return _subscribe("host_read", on_read, _install_host_read)


def _install_host_read() -> Callable[[], None] | None:
    try:
        from jax._src import array

        cls = array.ArrayImpl
        original = cls.__dict__["_value"]
        fget = original.fget
    except (ImportError, AttributeError, KeyError) as e:
        _say_missing("host_read_hook", e)
        return None

    def _value(self):  # type: ignore[no-untyped-def]
        if not _SUBSCRIBERS["host_read"] or getattr(_in_read, "depth", 0):
            return fget(self)
        try:
            ready = bool(self.is_ready())
        except Exception:  # noqa: BLE001 - a deleted array: JAX raises its own error below
            return fget(self)
        t0 = time.perf_counter()
        out = fget(self)
        _notify("host_read", self, time.perf_counter() - t0, ready, sys._getframe(1))
        return out

    try:
        cls._value = property(_value, doc=original.__doc__)
    except (TypeError, AttributeError) as e:
        _say_missing("host_read_hook", e)
        return None

    undo = [_wrap_host_wait(cls, name, what) for name, what in (("item", "read"), ("block_until_ready", "wait"))]

    def uninstall() -> None:
        if cls.__dict__.get("_value") is not original:
            cls._value = original
        for u in undo:
            u()

    return uninstall


class _InRead(threading.local):
    depth = 0


_in_read = _InRead()


def _wrap_host_wait(cls: Any, name: str, what: str) -> Callable[[], None]:
    """Report ``array.item()`` (on CPU, NumPy reads the value through the buffer protocol, never ``_value``) and
    ``array.block_until_ready()`` (a wait for the computation, no copy; ``jax.block_until_ready`` of one array
    calls it) as host reads, ``what`` saying which. The original runs with the same arguments and its result
    or exception is the program's; a ``_value`` read inside it is not reported twice."""
    original = cls.__dict__.get(name)
    if original is None or not callable(original):
        return lambda: None

    def wrapper(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not _SUBSCRIBERS["host_read"]:
            return original(self, *args, **kwargs)
        try:
            ready = bool(self.is_ready())
        except Exception:  # noqa: BLE001 - a deleted array: JAX raises its own error below
            return original(self, *args, **kwargs)
        t0 = time.perf_counter()
        _in_read.depth += 1
        try:
            out = original(self, *args, **kwargs)
        finally:
            _in_read.depth -= 1
        _notify("host_read", self, time.perf_counter() - t0, ready, sys._getframe(1), what)
        return out

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = getattr(original, "__doc__", None)
    try:
        setattr(cls, name, wrapper)
    except (TypeError, AttributeError):
        return lambda: None

    def undo() -> None:
        if cls.__dict__.get(name) is wrapper:
            setattr(cls, name, original)

    return undo


def is_device_get(frame: Any) -> bool:
    """Whether ``frame`` is a call of ``jax.device_get`` (a code-object comparison: no flatten)."""
    try:
        from jax._src import api

        return frame.f_code is api.device_get.__code__
    except Exception:  # noqa: BLE001 - a JAX that moved it: no batch is recognised
        return False


def device_get_leaves(frame: Any) -> int | None:
    """The number of leaves ``jax.device_get`` fetches when ``frame`` is one of its calls (it starts every leaf's
    host copy before reading any: one batched transfer), else None."""
    try:
        from jax._src import api

        if frame.f_code is not api.device_get.__code__:
            return None
        import jax

        return len(jax.tree_util.tree_leaves(frame.f_locals.get("x")))
    except Exception:  # noqa: BLE001 - a JAX that moved it: every read counts on its own
        return None


# --- jax.random key checks ----------------------------------------------------------------------------
def install_key_check_hook(on_key: Callable[[str, Any, Any], None]) -> Callable[[], None]:
    """Call ``on_key(api_name, key, caller_frame)`` each time a ``jax.random`` function checks its key
    (``api_name``: ``"normal"``, ``"split"``, ``"fold_in"``, ...; ``caller_frame``: the frame that called
    the ``jax.random`` function). Returns the uninstaller."""
    return _subscribe("key_check", on_key, _install_key_check)


def _install_key_check() -> Callable[[], None] | None:
    import importlib

    # JAX 0.10+: the package jax._src.random, its submodule core; JAX 0.6-0.8: the module jax._src.random (whose
    # attribute ``core`` is jax._src.core: ``from jax._src.random import core`` picks the wrong module there).
    random_core: Any = None
    for name in ("jax._src.random.core", "jax._src.random"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if callable(getattr(mod, "_check_prng_key", None)):
            random_core = mod
            break
    original = getattr(random_core, "_check_prng_key", None)
    if original is None:
        _say_missing("key_check_hook", AttributeError("_check_prng_key"))
        return None

    def _check_prng_key(name, key, *args, **kwargs):  # type: ignore[no-untyped-def]
        if _SUBSCRIBERS["key_check"]:
            _notify("key_check", name, key, sys._getframe(2))
        return original(name, key, *args, **kwargs)

    random_core._check_prng_key = _check_prng_key

    def uninstall() -> None:
        if getattr(random_core, "_check_prng_key", None) is _check_prng_key:
            random_core._check_prng_key = original

    return uninstall


# --- host callbacks run by compiled programs ----------------------------------------------------------
def install_host_callback_hook(on_call: Callable[[Any, float, Any], None]) -> Callable[[], None]:
    """Call ``on_call(callback, seconds, caller_frame)`` after each run of a ``jax.pure_callback`` by a
    compiled program (``callback``: the user's host function; ``seconds``: the time JAX's host side of the
    callback took, the function included: moving the operands to the host CPU device, the call, converting
    the results). Returns the uninstaller."""
    return _subscribe("host_callback", on_call, _install_host_callback)


def _install_host_callback() -> Callable[[], None] | None:
    try:
        from jax._src import callback as cb

        original = cb.pure_callback_impl
    except (ImportError, AttributeError) as e:
        _say_missing("host_callback_hook", e)
        return None

    def pure_callback_impl(*args, **kwargs):  # type: ignore[no-untyped-def]
        if not _SUBSCRIBERS["host_callback"]:
            return original(*args, **kwargs)
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            fn = kwargs.get("callback")
            _notify("host_callback", getattr(fn, "callback_func", fn), time.perf_counter() - t0, sys._getframe(1))

    cb.pure_callback_impl = pure_callback_impl

    def uninstall() -> None:
        if getattr(cb, "pure_callback_impl", None) is pure_callback_impl:
            cb.pure_callback_impl = original

    return uninstall


# --- eager host-to-device conversions ----------------------------------------------------------------
TRANSFER_MIN_BYTES = 1024  # smaller NumPy arrays (and every Python or NumPy scalar) are not timed at all


def install_host_transfer_hook(on_transfer: Callable[[str, list[Any], float, Any], None]) -> Callable[[], None]:
    """Call ``on_transfer(api, arrays, seconds, caller_frame)`` after each eager ``jnp.asarray``, ``jnp.array``
    or ``jax.device_put`` of host data (``api``: ``"jnp.asarray"``, ...; ``arrays``: the NumPy arrays of at least
    ``TRANSFER_MIN_BYTES`` it converted, the leaves of a ``device_put`` pytree included; ``seconds``: the call's
    time). Returns the uninstaller."""
    return _subscribe("host_transfer", on_transfer, _install_host_transfer)


def _install_host_transfer() -> Callable[[], None] | None:
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np

        # (module, attribute, name in findings, the keyword of the data argument)
        targets = [(jnp, "asarray", "jnp.asarray", "a"), (jnp, "array", "jnp.array", "object"),
                   (jax, "device_put", "jax.device_put", "x")]
        originals = [(mod, attr, getattr(mod, attr)) for mod, attr, _, _ in targets]
        leaves_of = jax.tree_util.tree_leaves
    except (ImportError, AttributeError) as e:
        _say_missing("host_transfer_hook", e)
        return None
    ndarray, containers = np.ndarray, (dict, list, tuple)

    def host_arrays(x: Any) -> list[Any]:
        if type(x) is ndarray:
            return [x] if x.nbytes >= TRANSFER_MIN_BYTES else []
        if type(x) in containers:
            return [v for v in leaves_of(x) if type(v) is ndarray and v.nbytes >= TRANSFER_MIN_BYTES]
        return []

    def wrap(original: Callable[..., Any], api: str, keyword: str) -> Callable[..., Any]:
        def converter(*args, **kwargs):  # type: ignore[no-untyped-def]
            if not _SUBSCRIBERS["host_transfer"]:
                return original(*args, **kwargs)
            arrays = host_arrays(args[0] if args else kwargs.get(keyword))
            if not arrays or staging_now():
                return original(*args, **kwargs)
            t0 = time.perf_counter()
            out = original(*args, **kwargs)
            _notify("host_transfer", api, arrays, time.perf_counter() - t0, sys._getframe(1))
            return out

        for name in ("__name__", "__qualname__", "__doc__", "__module__"):
            try:
                setattr(converter, name, getattr(original, name))
            except (AttributeError, TypeError):
                pass
        converter.__wrapped__ = original  # type: ignore[attr-defined]
        return converter

    wrappers = [(mod, attr, wrap(orig, api, kw)) for (mod, attr, orig), (_, _, api, kw) in zip(originals, targets)]
    for mod, attr, w in wrappers:
        setattr(mod, attr, w)

    def uninstall() -> None:
        for (mod, attr, w), (_, _, orig) in zip(wrappers, originals):
            if getattr(mod, attr, None) is w:
                setattr(mod, attr, orig)

    return uninstall


# --- trace context and tracing state ------------------------------------------------------------------
def trace_context() -> tuple[tuple[str, ...], tuple[Any, ...]] | None:
    """``(names, values)`` of the configuration JAX adds to jit's cache key; None where this JAX cannot name
    them (``trace_context_names`` is newer than JAX 0.8)."""
    try:
        from jax._src import config

        values = tuple(config.trace_context())
        names = tuple(config.trace_context_names())
    except Exception:  # noqa: BLE001 - NotImplementedError on an older jaxlib, anything exotic
        return None
    return (names, values) if len(names) == len(values) else None


def staging_now() -> bool:
    """True while this thread traces a function into a jaxpr (jit, ``make_jaxpr``, a ``lax`` body)."""
    try:
        from jax._src import core
        from jax._src.interpreters import partial_eval as pe

        return isinstance(core.trace_ctx.trace, pe.DynamicJaxprTrace)
    except Exception:  # noqa: BLE001 - a JAX without trace_ctx: say no (no baked-key finding)
        return False


# --- keys made from seeds -------------------------------------------------------------------------------
def install_key_seed_hook(on_seed: Callable[[str, Any, Any, Any], None]) -> Callable[[], None]:
    """Call ``on_seed(api_name, seed, key, caller_frame)`` after each ``jax.random.key(seed)`` or
    ``jax.random.PRNGKey(seed)`` made through the public attributes (``random.PRNGKey(0)``, looked up by the
    program at each call; a name bound before the hook was installed is not seen). The wrappers call the
    original with the same arguments and return its result. Returns the uninstaller."""
    return _subscribe("key_seed", on_seed, _install_key_seed)


def _install_key_seed() -> Callable[[], None] | None:
    import functools

    import jax.random as public

    originals = {name: getattr(public, name, None) for name in ("key", "PRNGKey")}
    if not all(callable(f) for f in originals.values()):
        _say_missing("key_seed_hook", AttributeError("jax.random.key/PRNGKey"))
        return None
    wrappers = {}
    for name, original in originals.items():
        def wrapper(seed, *args, __original=original, __name=name, **kwargs):  # type: ignore[no-untyped-def]
            key = __original(seed, *args, **kwargs)
            if _SUBSCRIBERS["key_seed"]:
                _notify("key_seed", __name, seed, key, sys._getframe(1))
            return key

        wrappers[name] = functools.wraps(original)(wrapper)
        setattr(public, name, wrappers[name])

    def uninstall() -> None:
        for name, original in originals.items():
            if getattr(public, name, None) is wrappers[name]:
                setattr(public, name, original)

    return uninstall
