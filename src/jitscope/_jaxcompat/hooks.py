"""Watch's capture of each jit call and each lowering/compile (checked on JAX 0.6.2 - 0.10.2)."""

from __future__ import annotations

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


def install_jit_call_hook(on_enter, on_exit, on_result=None, with_info=False):  # type: ignore[no-untyped-def]
    """Call ``on_enter(fun, static_argnums, static_argnames, args, kwargs) -> token`` before and
    ``on_exit(token)`` after every slow-path jit call; returns a function that uninstalls it.
    ``on_result(token, out)``, when given, sees what the call returned (``jaxpr_of_call_result``).
    ``with_info``: ``on_enter`` gets the jit object's options as a sixth argument (JAX's private
    ``PjitInfo``; read it with ``jit_options_text``).

    Hooks stack: uninstalling restores whatever was installed before. ``fun`` is the function
    the user passed to ``jax.jit`` (possibly a ``functools.partial``).
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

    def _infer_params(fun, ji, args, kwargs):  # type: ignore[no-untyped-def]
        if with_info:
            token = on_enter(fun, ji.static_argnums, ji.static_argnames, args, kwargs, ji)
        else:
            token = on_enter(fun, ji.static_argnums, ji.static_argnames, args, kwargs)
        try:
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


def install_stage_hook(on_lowered, on_compiled, around_compile=None, on_module=None):  # type: ignore[no-untyped-def]
    """Call ``on_lowered(module_name, closed_jaxpr)`` as each program is lowered and
    ``on_compiled(module_name, mlir_module, loaded_executable)`` after each backend compile (or
    persistent-cache load), on the compiling thread; returns a function that uninstalls both.
    ``on_compiled=None`` wraps the lowering only (the capture engine: ``program_source``).
    ``around_compile(module_name, compile_fn)``, when given, runs the compile (``compile_fn()``)
    and returns its executable: ``watch --dump`` profiles each compile this way.
    ``on_module(module_name, mlir_module)``, when given, gets the lowered module as lowering returns
    (the capture engine fingerprints each user compile's program: ``collect/program_text.py``).

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
        result = lower0(module_name, jaxpr, *args, **kwargs)
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
