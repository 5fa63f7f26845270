"""The C++ dispatch fast path and a program executing on the calling thread."""

from __future__ import annotations

from typing import Any

from ._base import _say_missing

# --- watch: the C++ dispatch fast path --------------------------------------
# Checked on JAX 0.10.2. After a slow-path jit call has run, ``jax._src.pjit._get_fastpath_data``
# builds what JAX's C++ dispatch cache keeps for the next call with the same signature; it returns
# None when the executable cannot take the fast path, and the C++ cache then sends every such call
# back through Python (``cache_miss``: ``_infer_params`` -> ``_run_python_pjit``), with no trace and
# no compile. It is called once per Python-path call of a jitted function (and by ``pjit``'s eager
# impl), never on a C++ cache hit.
_FASTPATH_HOOK = "_get_fastpath_data"


_FASTPATH_SUBSCRIBERS: list[tuple[Any, bool]] = []  # (callback, wants the call's outputs)
_FASTPATH_INSTALLED: list[Any] = []  # [uninstall] while one wrapper is installed for every subscriber


def install_fastpath_hook(on_fastpath, *, outputs: bool = False):  # type: ignore[no-untyped-def]
    """Call ``on_fastpath(effects, fast, executable, pgle_profiler)`` after every ``_get_fastpath_data``
    (the end of every Python-path jit call, nested calls inside a trace included); returns a function
    that uninstalls it. ``effects`` is the object the call passed (its jaxpr's ``effects``: identity
    tells which call it was), ``fast`` whether the C++ cache will take the next call; when it will not,
    ``fastpath_blockers(executable, effects, pgle_profiler)`` says why (left to the caller: most calls
    never need it). With ``outputs=True`` the callback gets a fifth argument: the call's flat outputs
    (the arrays its execution will fill; the stall watchdog polls their ``is_ready()``). Several
    subscribers share one wrapper. A JAX without the function gets a no-op, never a crash."""
    entry = (on_fastpath, outputs)
    if not _FASTPATH_INSTALLED:
        uninstall = _install_fastpath_wrapper()
        if uninstall is None:
            return lambda: None
        _FASTPATH_INSTALLED.append(uninstall)
    _FASTPATH_SUBSCRIBERS.append(entry)

    def remove() -> None:
        if entry in _FASTPATH_SUBSCRIBERS:
            _FASTPATH_SUBSCRIBERS.remove(entry)
        if not _FASTPATH_SUBSCRIBERS and _FASTPATH_INSTALLED:
            _FASTPATH_INSTALLED.pop()()

    return remove


def _install_fastpath_wrapper():  # type: ignore[no-untyped-def]
    import inspect as _inspect

    try:
        from jax._src import pjit

        original = getattr(pjit, _FASTPATH_HOOK)
        names = list(_inspect.signature(original).parameters)
        i_exe, i_eff = names.index("executable"), names.index("effects")
        i_pgle = names.index("pgle_profiler") if "pgle_profiler" in names else None
        i_out = names.index("out_flat") if "out_flat" in names else None
        try:  # 0.6-0.8 also refuse programs with host callbacks; 0.10 no longer checks it
            _HOST_CALLBACK_CHECK[:] = ["has_host_callbacks" in _inspect.getsource(original)]
        except (OSError, TypeError):
            _HOST_CALLBACK_CHECK[:] = [False]
    except (ImportError, AttributeError, ValueError, TypeError) as e:
        _say_missing("fastpath_hook", e)
        return None

    last = max(i for i in (i_exe, i_eff, i_pgle) if i is not None)

    def _get_fastpath_data(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = original(*args, **kwargs)
        try:
            if len(args) > last and not kwargs:  # how JAX calls it: all positional
                eff, exe = args[i_eff], args[i_exe]
                pgle = None if i_pgle is None else args[i_pgle]
                outs = args[i_out] if i_out is not None and len(args) > i_out else None
            else:
                named = {**dict(zip(names, args)), **kwargs}
                eff, exe, pgle = named.get("effects"), named.get("executable"), named.get("pgle_profiler")
                outs = named.get("out_flat")
            for callback, wants_outputs in list(_FASTPATH_SUBSCRIBERS):
                try:
                    if wants_outputs:
                        callback(eff, out is not None, exe, pgle, outs)
                    else:
                        callback(eff, out is not None, exe, pgle)
                except Exception:  # noqa: BLE001 - a finding must never break the user's program
                    pass
        except Exception:  # noqa: BLE001
            pass
        return out

    setattr(pjit, _FASTPATH_HOOK, _get_fastpath_data)

    def uninstall() -> None:
        if getattr(pjit, _FASTPATH_HOOK, None) is _get_fastpath_data:
            setattr(pjit, _FASTPATH_HOOK, original)

    return uninstall


# --- watch: a compiled program executing on the calling thread --------------------
# Checked on JAX 0.6.2-0.10.2: a jit call runs its executable through
# ``pxla.ExecuteReplicated.__call__``; a thread whose stack holds that frame is executing a compiled
# program (synchronously: programs with host callbacks on CPU run inside the call, others are only
# dispatched there and finish asynchronously).
_EXECUTE_CODE: list[Any] = []


def executing_code() -> Any:
    """The code object of the frame that runs a compiled program (``ExecuteReplicated.__call__``), or
    None on a JAX without it (the stall watchdog then sees only asynchronous first executions)."""
    if not _EXECUTE_CODE:
        try:
            from jax._src.interpreters import pxla

            _EXECUTE_CODE.append(pxla.ExecuteReplicated.__call__.__code__)
        except (ImportError, AttributeError) as e:
            _say_missing("execute_frame", e)
            _EXECUTE_CODE.append(None)
    return _EXECUTE_CODE[0]


# Settings that send every jit call through Python (``fastpath_blockers``): their thread-local contexts,
# by the name of ``jax._src.config``'s state (checked on 0.6.2, 0.8.3, 0.10.2; ``no_execution`` is newer).
_SLOW_PATH_SETTINGS = ("debug_key_reuse", "enable_pgle", "no_execution")


def fast_path_settings():  # type: ignore[no-untyped-def]
    """A context manager under which this thread's jit calls can take the C++ fast path: the settings that
    refuse it (``jax_debug_key_reuse``, PGLE, ``jax_no_execution``) off in a thread-local context, the
    program's own values back on exit. For jitscope's reference fast call, measured while the user's
    program may have one of them on (a reference measured under ``jax_debug_key_reuse`` is itself a
    Python-path call). A JAX without one of the states leaves it alone."""
    import contextlib

    stack = contextlib.ExitStack()
    try:
        from jax._src import config
    except Exception:  # noqa: BLE001 - no config module: nothing to turn off
        return stack
    for name in _SLOW_PATH_SETTINGS:
        state = getattr(config, name, None)
        if state is None or not callable(state) or not getattr(state, "value", False):
            continue
        try:
            stack.enter_context(state(False))
        except Exception as err:  # noqa: BLE001 - a state that is not a context manager on this JAX
            _say_missing(f"config.{name} as a context manager", err)
    return stack


_FASTPATH_MODULES: list = []
_HOST_CALLBACK_CHECK: list[bool] = []  # whether this JAX's _get_fastpath_data checks has_host_callbacks


def fastpath_blockers(executable: object, effects: object, pgle_profiler: object = None) -> tuple[str, ...]:
    """Why ``_get_fastpath_data`` refused the C++ fast path, from the conditions it checks (0.10; 0.6-0.8
    also refuse host callbacks): ``ordered_effects``, ``unordered_effects``, ``host_callbacks``,
    ``ref_effects``, ``pgle``, ``no_execution``, ``executable`` (not a plain single-program
    executable), ``debug_key_reuse`` (``jax_debug_key_reuse`` runs every call without an executable),
    ``transformed`` (called with tracers: under grad/vmap outside jit), ``no_executable``; or
    ``unknown`` when none of these holds (its output check, or a condition of another JAX)."""
    if not _FASTPATH_MODULES:  # imported once: this runs on every Python-path call
        import jax
        from jax._src import core, pjit
        from jax._src.interpreters import pxla
        from jax._src.state.types import RefEffect

        _FASTPATH_MODULES[:] = [jax, core, pjit, pxla, RefEffect]
    jax, core, pjit, pxla, RefEffect = _FASTPATH_MODULES
    if executable is None:
        if getattr(jax.config, "jax_debug_key_reuse", False):
            return ("debug_key_reuse",)
        return ("no_executable",) if core.trace_state_clean() else ("transformed",)
    out: list[str] = []
    call = getattr(executable, "unsafe_call", None)
    if not isinstance(executable, pxla.MeshExecutable) or not isinstance(call, pxla.ExecuteReplicated):
        out.append("executable")
    else:
        if call.ordered_effects:
            out.append("ordered_effects")
        if call.has_unordered_effects:
            out.append("unordered_effects")
        if _HOST_CALLBACK_CHECK[:1] == [True] and getattr(call, "has_host_callbacks", False):
            out.append("host_callbacks")
    if any(isinstance(e, RefEffect) for e in (effects or ())):
        out.append("ref_effects")
    need_fdo = getattr(pjit, "_need_to_rebuild_with_fdo", None)
    if pgle_profiler is not None and need_fdo is not None and need_fdo(pgle_profiler):
        out.append("pgle")
    if getattr(jax.config, "jax_no_execution", False):
        out.append("no_execution")
    return tuple(out) or ("unknown",)
