"""Watch's capture of each jit call and each lowering/compile (checked on JAX 0.6.2 - 0.10.2)."""

from __future__ import annotations

import threading

from ._base import _hide_this_file_from_jax, _say_missing

# --- watch: compile-event capture -------------------------------------------
# Checked on JAX 0.10.2. jax.monitoring tells *that* a trace/lower/compile happened and
# its duration and ``fun_name``, but not which function object or which arguments. Those
# come from wrapping ``jax._src.pjit._infer_params(fun, jit_info, args, kwargs)``: the
# Python slow path of every jitted call (a C++ dispatch-cache miss) and of ``.trace()`` /
# ``.lower()``. Warm calls that hit the C++ cache never reach it, so they are untouched.

# The monitoring event names (jax._src.dispatch.*_EVENT); their value is checked by a test.
TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
# Loggers that carry ``jax_explain_cache_misses`` text ("TRACING CACHE MISS at ..."): partial_eval
# since 0.9 (the tracing cache moved there), pjit in 0.6-0.8. The handler is attached to each.
EXPLAIN_LOGGERS = ("jax._src.interpreters.partial_eval", "jax._src.pjit")
# Loggers that explain mode raises to WARNING for persistent-cache misses/writes.
EXPLAIN_NOISY_LOGGERS = ("jax._src.compiler", "jax._src.compilation_cache")


# The private name wrapped below; a test renames it to simulate a JAX that moved it (deleting
# it would break JAX itself, which calls it by its global name).
_PJIT_HOOK = "_infer_params"


def install_jit_call_hook(on_enter, on_exit, on_result=None, explain_for=None, with_info=True):  # type: ignore[no-untyped-def]
    """Call ``on_enter(fun, static_argnums, static_argnames, args, kwargs, jit_info) -> token`` before and
    ``on_exit(token)`` after every slow-path jit call; returns a function that uninstalls it.
    ``on_result(token, out)``, when given, sees what the call returned (``jaxpr_of_call_result``).
    ``explain_for(token) -> bool``, when given: True runs this call with ``jax_explain_cache_misses`` on
    for this thread only (JAX's thread-local config context), so a tracing-cache miss in it is explained;
    the global setting is left as it is. On a JAX without that context, never (the text is then absent).
    ``with_info``: kept for callers that ask for it; ``jit_info`` is always passed (read it only through
    ``jit_options``/``jit_options_text``).

    Hooks stack: uninstalling restores whatever was installed before. ``fun`` is the function
    the user passed to ``jax.jit`` (possibly a ``functools.partial``); ``jit_info`` is read only
    through ``jit_options``.
    """
    _hide_this_file_from_jax()
    try:
        from jax._src import pjit

        original = getattr(pjit, _PJIT_HOOK)
    except (ImportError, AttributeError) as e:
        # A JAX that moved this hook: watch still counts compiles via jax.monitoring, it just
        # cannot name the arguments that caused them. Say so once, never crash the program.
        _say_missing("jit_call_hook", e)
        return lambda: None

    explaining = _explain_context() if explain_for is not None else None

    def _infer_params(fun, ji, args, kwargs):  # type: ignore[no-untyped-def]
        token = on_enter(fun, ji.static_argnums, ji.static_argnames, args, kwargs, ji)
        try:
            if explaining is not None and explain_for(token):
                with explaining(True):
                    out = original(fun, ji, args, kwargs)
            else:
                out = original(fun, ji, args, kwargs)
            if on_result is not None:
                on_result(token, out)
            return out
        finally:
            on_exit(token)

    setattr(pjit, _PJIT_HOOK, _infer_params)

    def uninstall() -> None:
        if getattr(pjit, _PJIT_HOOK, None) is _infer_params:
            setattr(pjit, _PJIT_HOOK, original)

    return uninstall


# The options of a jit object that key its caches besides the function and the arguments, and their
# defaults (PjitInfo's fields, 0.6-0.10). Two ``jax.jit`` objects of one function with other donation
# compile two programs from one trace: watch names the option instead of "same signature".
_JIT_OPTION_DEFAULTS = {"donate_argnums": (), "donate_argnames": (), "keep_unused": False, "device": None,
                        "backend": None, "inline": False, "compiler_options_kvs": ()}


def jit_options(jit_info) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The jit options of ``jit_info`` (what the hook passes) that differ from their defaults, as text:
    ``{"donate_argnums": "(0,)"}``; ``in_shardings``/``out_shardings`` where the user gave them."""
    out: dict[str, str] = {}
    for name, default in _JIT_OPTION_DEFAULTS.items():
        value = getattr(jit_info, name, default)
        if value != default and value is not None:
            out[name] = repr(tuple(value)) if isinstance(value, (tuple, list)) else repr(value)
    for name in ("in_shardings", "out_shardings"):
        leaves = getattr(jit_info, f"{name}_leaves", ()) or ()
        if any(type(v).__name__ != "UnspecifiedValue" for v in leaves):
            out[name] = ", ".join(str(v) for v in leaves)[:200]
    return out


def _explain_context():  # type: ignore[no-untyped-def]
    """``jax._src.config.explain_cache_misses``: called with a value it is a thread-local context manager
    (JAX 0.6 - 0.10); None when this JAX lacks it."""
    try:
        from jax._src import config

        state = config.explain_cache_misses
        with state(False):
            pass
        return state
    except Exception:  # noqa: BLE001 - feature detection: any failure means "not available"
        return None


# JAX's tracing-cache-miss explainer, where it describes a pytree difference, rebuilds both trees with
# placeholder leaves (``tree_util.equality_errors_pytreedef``, looked up on the module at call time by the
# explainers of JAX 0.6 - 0.12), so a pytree class whose unflatten checks its children raises there, inside
# the user's jit call. Under watch that explainer runs only because watch turned ``jax_explain_cache_misses``
# on, so its failure is watch's, never the program's: while watch explains, that function answers "no
# difference found" instead of raising. Outside an explanation (the setting off) it is JAX's own.


def shield_cache_miss_explainer():  # type: ignore[no-untyped-def]
    """While installed, an exception in ``tree_util.equality_errors_pytreedef`` while the cache-miss
    explanation is on (a user pytree's unflatten refusing JAX's placeholder leaves) gives no tree difference
    instead of failing the jit call; returns a function that uninstalls it. Only for when jitscope turned the
    explanation on (the user did not)."""
    try:
        from jax._src import config, tree_util

        original = tree_util.equality_errors_pytreedef
        explaining = config.explain_cache_misses
    except (ImportError, AttributeError):
        return lambda: None

    def equality_errors_pytreedef(tree1, tree2):  # type: ignore[no-untyped-def]
        if not explaining.value:
            return original(tree1, tree2)
        try:
            return list(original(tree1, tree2))
        except Exception:  # noqa: BLE001 - the explanation is optional; the user's call is not
            return []

    tree_util.equality_errors_pytreedef = equality_errors_pytreedef

    def uninstall() -> None:
        if tree_util.equality_errors_pytreedef is equality_errors_pytreedef:
            tree_util.equality_errors_pytreedef = original

    return uninstall


def install_stage_hook(on_lowered, on_compiled, around_compile=None, on_module=None,  # type: ignore[no-untyped-def]
                       on_lowering_end=None):
    """Call ``on_lowered(module_name, closed_jaxpr)`` as each program is lowered and
    ``on_compiled(module_name, mlir_module, loaded_executable)`` after each backend compile (or
    persistent-cache load), on the compiling thread; returns a function that uninstalls both.
    ``on_compiled=None`` wraps the lowering only (the capture engine: ``program_source``).
    ``around_compile(module_name, compile_fn)``, when given, runs the compile (``compile_fn()``)
    and returns its executable: ``watch --dump`` profiles each compile this way.
    ``on_module(module_name, mlir_module)``, when given, gets the lowered module as lowering returns
    (the capture engine fingerprints each user compile's program: ``collect/program_text.py``).
    ``on_lowering_end(module_name)``, when given, is called as each lowering ends, raised or not: the
    capture engine keeps the record of a program being lowered apart from programs JAX compiles
    while it lowers (a lowering rule computing a constant eagerly).

    For ``watch --dump``: JAX records its lowering and backend-compile monitoring spans just after
    these return, so a listener of those spans finds this thread's latest program here. A JAX
    without either function gets a no-op (the dump then lacks those files), never a crash.
    """
    try:
        from jax._src import compiler
        from jax._src.interpreters import mlir
        from jax._src.lib.mlir import ir

        lower0, compile0 = mlir.lower_jaxpr_to_module, compiler.compile_or_get_cached
    except (ImportError, AttributeError) as e:
        _say_missing("stage_hook", e)
        return lambda: None

    def lower_jaxpr_to_module(module_name, jaxpr, *args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            on_lowered(str(module_name), jaxpr)
        except Exception:  # a dump must never break the user's program
            pass
        try:
            result = lower0(module_name, jaxpr, *args, **kwargs)
        finally:
            if on_lowering_end is not None:
                try:
                    on_lowering_end(str(module_name))
                except Exception:  # never break the user's program
                    pass
        if on_module is not None:
            try:
                on_module(str(module_name), result.module)
            except Exception:  # another JAX's lowering result: no fingerprint, never a crash
                pass
        return result

    def compile_or_get_cached(backend, computation, *args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            name = ir.StringAttr(computation.operation.attributes["sym_name"]).value
        except Exception:
            name = None
        if around_compile is None:
            executable = compile0(backend, computation, *args, **kwargs)
        else:
            executable = around_compile(name or "", lambda: compile0(backend, computation, *args, **kwargs))
        if name is not None and on_compiled is not None:
            try:
                on_compiled(name, computation, executable)
            except Exception:
                pass
        return executable

    mlir.lower_jaxpr_to_module = lower_jaxpr_to_module
    if on_compiled is not None or around_compile is not None:  # else the lowering only
        compiler.compile_or_get_cached = compile_or_get_cached

    def uninstall() -> None:
        if mlir.lower_jaxpr_to_module is lower_jaxpr_to_module:
            mlir.lower_jaxpr_to_module = lower0
        if compiler.compile_or_get_cached is compile_or_get_cached:
            compiler.compile_or_get_cached = compile0

    return uninstall


# JAX's function that calls XLA's backend compile, by release (checked on 0.6.2, 0.8.3, 0.10.2).
_BACKEND_COMPILE = ("backend_compile_and_load", "backend_compile")


class CompileGuard:
    """Whether this thread is inside XLA's backend compile, and what to run right after it returns.

    XLA's compile checks for Python signals while it runs (``PyErr_CheckSignals``): an exception raised by a
    signal handler there (``KeyboardInterrupt``, watch's ``Terminated``) makes the call return early while
    XLA's compile goes on in its own threads; the Python objects it uses are freed by the unwinding and the
    process crashes later (exit 139, seen on JAX 0.10.2 CPU, after the compile). A handler asks
    ``compiling()`` and, when True, leaves its exception for ``after`` (called on this thread once the
    outermost compile call has returned, from Python: the compile finished, nothing is left running).
    """

    def __init__(self, after) -> None:  # type: ignore[no-untyped-def]
        self._local = threading.local()
        self.after = after

    def compiling(self) -> bool:
        return getattr(self._local, "depth", 0) > 0

    def wrap(self, original):  # type: ignore[no-untyped-def]
        local, guard = self._local, self

        def backend_compile(*args, **kwargs):  # type: ignore[no-untyped-def]
            depth = getattr(local, "depth", 0)
            local.depth = depth + 1
            try:
                return original(*args, **kwargs)
            finally:
                local.depth = depth
                if depth == 0:
                    guard.after()  # may raise the deferred exception: from Python, the compile done

        backend_compile._jitscope_original = original  # type: ignore[attr-defined]
        return backend_compile


def install_compile_guard(after):  # type: ignore[no-untyped-def]
    """Wrap JAX's backend-compile function with a ``CompileGuard(after)``; ``(guard, uninstall)``. A JAX
    without a known name gets a guard that is never compiling (signals then interrupt as before)."""
    guard = CompileGuard(after)
    try:
        from jax._src import compiler
    except ImportError:
        return guard, lambda: None
    name = next((n for n in _BACKEND_COMPILE if callable(getattr(compiler, n, None))), None)
    if name is None:
        return guard, lambda: None
    original = getattr(compiler, name)
    wrapped = guard.wrap(original)
    setattr(compiler, name, wrapped)

    def uninstall() -> None:
        if getattr(compiler, name, None) is wrapped:
            setattr(compiler, name, original)

    return guard, uninstall

