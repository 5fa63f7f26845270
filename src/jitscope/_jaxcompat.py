"""The only module allowed to import ``jax._src``. Everything version-sensitive lives here.

Each helper below states which JAX versions it was checked on; tests/test_jaxcompat.py
exercises every one on the installed JAX, so an upgrade that breaks one fails loudly
in one place. Prefer public APIs (jax.monitoring, jax.stages, jax.make_jaxpr) elsewhere.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

TESTED_JAX = (">=0.10.0", "<0.11")  # the whole suite; `make test-matrix` runs the JAX-touching tests on 0.8.3, 0.6.2
TESTED_MINORS = ((0, 6), (0, 10))  # the range `make test-matrix` covers (known gaps per release: README)


def version_notice() -> str | None:
    """One line when the installed JAX is outside the tested range (0.6 - 0.10), else None."""
    import jax

    try:
        minor = tuple(int(p) for p in jax.__version__.split(".")[:2])
    except ValueError:
        return None
    missing = sorted(name for name, (ok, _) in capabilities().items() if not ok)
    if TESTED_MINORS[0] <= minor <= TESTED_MINORS[1] and not missing:
        return None
    where = "inside" if TESTED_MINORS[0] <= minor <= TESTED_MINORS[1] else "outside"
    lacks = f"; unavailable here: {', '.join(missing)}" if missing else "; every hook attached"
    return (f"JAX {jax.__version__} is {where} jitscope's tested range (0.6 - 0.10){lacks} "
            "(`jitscope doctor` says what each one disables)")


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


def install_jit_call_hook(on_enter, on_exit, on_result=None):  # type: ignore[no-untyped-def]
    """Call ``on_enter(fun, static_argnums, static_argnames, args, kwargs) -> token`` before and
    ``on_exit(token)`` after every slow-path jit call; returns a function that uninstalls it.
    ``on_result(token, out)``, when given, sees what the call returned (``jaxpr_of_call_result``).

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
        if name is not None:
            try:
                on_compiled(name, computation, executable)
            except Exception:
                pass
        return executable

    mlir.lower_jaxpr_to_module = lower_jaxpr_to_module
    if on_compiled is not None:  # the capture engine needs only the lowering
        compiler.compile_or_get_cached = compile_or_get_cached

    def uninstall() -> None:
        if mlir.lower_jaxpr_to_module is lower_jaxpr_to_module:
            mlir.lower_jaxpr_to_module = lower0
        if compiler.compile_or_get_cached is compile_or_get_cached:
            compiler.compile_or_get_cached = compile0

    return uninstall


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


# --- watch: programs JAX compiles outside the user's jit call -----------------
# Checked on JAX 0.6.2, 0.8.3, 0.10.2. The backward program of ``grad(jit(f))``, the programs of
# ``vjp``/``linearize``/``checkpoint``/``vmap`` of a jitted function, and eager ``lax.cond`` /
# ``while_loop`` / ``scan`` are compiled by JAX's ``pjit``/``apply_primitive`` implementation after
# the user's jit call returned (or with no jit call at all). Monitoring names them only
# (``jit(f)``, ``jit(cond)``); the program's ``ClosedJaxpr`` at lowering says where it came from:
# its ``debug_info.func_src_info`` (``"f at file.py:12"``) survives linearize, transpose, batching
# and remat, and JAX's one-primitive wrapper for an eager control-flow op holds the user's bodies
# as sub-jaxprs with their own debug info.


@dataclass(frozen=True)
class ProgramSource:
    """Where a lowered program comes from, when it is built from the user's code.

    ``function``/``file``/``line``: the user's function as JAX recorded it (its ``__name__`` and
    first line). ``primitive``: for an eager control-flow op (``cond``, ``while``, ``scan``), its
    name; ``function`` is then that name and ``bodies`` the user's functions inside
    (``(name, file, line)``, as listed in the primitive's params). ``in_avals``: the program's
    input types (objects with ``shape``, ``dtype``, ``weak_type``).
    """

    function: str
    file: str
    line: int
    primitive: str | None = None
    bodies: tuple[tuple[str, str, int], ...] = ()
    in_avals: tuple = ()


def _func_src(jaxpr: object) -> tuple[str, str, int] | None:
    info = getattr(getattr(jaxpr, "jaxpr", jaxpr), "debug_info", None)
    text = getattr(info, "func_src_info", None)
    if not isinstance(text, str) or " at " not in text:
        return None
    name, _, where = text.rpartition(" at ")
    file, _, line = where.rpartition(":")
    if not file or not line.isdigit():
        return None
    return name, file, int(line)


def program_source(closed_jaxpr: object) -> ProgramSource | None:
    """The user's function a program is built from, or None for JAX's own programs (eager ops,
    ``jnp`` routines, a ``jnp`` function with user callbacks such as ``jnp.piecewise``)."""
    try:
        jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
        avals = tuple(getattr(v, "aval", None) for v in jaxpr.invars)  # type: ignore[attr-defined]
        src = _func_src(jaxpr)
        if src is None:
            return None
        if is_user_file(src[1]):
            return ProgramSource(*src, in_avals=avals)
        eqns = jaxpr.eqns  # type: ignore[attr-defined]
        # apply_primitive's wrapper: jit of a function named after the one primitive it binds.
        if len(eqns) != 1 or eqns[0].primitive.name != src[0]:
            return None
        bodies = tuple(b for b in map(_func_src, jaxprs_in_params(eqns[0].params)) if b and is_user_file(b[1]))
        if not bodies:
            return None
        return ProgramSource(src[0], bodies[0][1], bodies[0][2], src[0], bodies, avals)
    except Exception:  # noqa: BLE001 - another JAX's jaxpr layout: the compile stays internal
        return None


# Frames of JAX's transformations, by (file tail, code-name prefix) -> the role of a program compiled
# under them. Only names: a JAX that renames them gives the role "derived", never a wrong count.
_ROLE_FRAMES = ((os.path.join("interpreters", "ad.py"), "backward_pass", "backward"),
                ("ad_checkpoint.py", "remat", "remat"),
                (os.path.join("interpreters", "batching.py"), "", "vmap"))


def derived_program_role(frame: object) -> str:
    """What a program JAX compiles outside the user's jit call is for, from the JAX frames on the stack:
    ``backward`` (the transpose of ``grad``/``vjp``), ``remat``, ``vmap``, joined by ``+``;
    ``derived`` when none is found (``linearize``'s tangent program)."""
    roles: list[str] = []
    f = frame
    while f is not None:
        code = f.f_code  # type: ignore[attr-defined]
        for tail, prefix, role in _ROLE_FRAMES:
            if role not in roles and code.co_name.startswith(prefix) and code.co_filename.endswith(tail):
                roles.append(role)
        f = f.f_back  # type: ignore[attr-defined]
    return "+".join(r for _, _, r in _ROLE_FRAMES if r in roles) or "derived"


def pmap_user_call(fun: object, args: tuple, kwargs: dict) -> tuple[object, tuple, dict] | None:
    """For the function ``jax.pmap`` jits (0.8+: ``jit(shard_map(...))``), the user's function and
    arguments: ``(fun, args, kwargs)``; None for any other function.

    0.10 jits ``_fun`` of ``jax/_src/pmap.py``, whose closure holds the user's function as a
    ``linear_util.WrappedFun`` and the arguments' tree; 0.8 jits ``WrappedFun.call_wrapped``.
    """
    try:
        from jax._src import linear_util as lu

        f = fun
        for _ in range(10):
            inner = getattr(f, "__wrapped__", None)
            if inner is None:
                break
            f = inner
        wrapped, tree = None, None
        if isinstance(getattr(f, "__self__", None), lu.WrappedFun):
            wrapped = f.__self__  # type: ignore[attr-defined]
        elif getattr(getattr(f, "__code__", None), "co_filename", "").endswith(os.path.join("_src", "pmap.py")):
            import jax

            for cell in getattr(f, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                if isinstance(value, lu.WrappedFun):
                    wrapped = value
                elif isinstance(value, jax.tree_util.PyTreeDef):
                    tree = value
        if wrapped is None:
            return None
        if tree is not None and tree.num_leaves == len(args) and not kwargs:
            import jax

            args, kwargs = jax.tree_util.tree_unflatten(tree, args)
        return wrapped.f, tuple(args), dict(kwargs)
    except Exception:  # noqa: BLE001 - another JAX's pmap: the compile stays internal
        return None


def optimized_hlo_text(executable) -> str:  # type: ignore[no-untyped-def]
    """The optimised HLO of a compiled executable ("" when this JAX cannot say)."""
    try:
        return "\n\n".join(m.to_string() for m in executable.hlo_modules())
    except Exception:
        return ""
def jaxpr_of_call_result(out: object) -> object:
    """The ``ClosedJaxpr`` a slow-path jit call traced (or found in JAX's trace cache), from what the
    hooked ``_infer_params`` returned: ``(PjitParams, args)`` on 0.6-0.10. None when not found."""
    try:
        return out[0].params["jaxpr"]  # type: ignore[index]
    except Exception:  # noqa: BLE001 - another JAX: no jaxpr, no jaxpr findings
        return None


_HIDDEN: list[bool] = []


_TRANSFORM_NAMES = {"LinearizeTracer": "grad", "JVPTracer": "jvp", "BatchTracer": "vmap",
                    "JaxprTracer": "partial_eval", "DynamicJaxprTracer": "trace"}


def transform_name(tracer: object) -> str:
    """Which transformation a tracer belongs to (``grad``, ``jvp``, ``vmap``, ...), by its class.

    0.9+ give grad its own ``LinearizeTracer``; 0.6-0.8 linearize with a ``JVPTracer`` whose tangent
    is a partial-evaluation ``JaxprTracer`` (a real ``jvp`` carries a concrete tangent).
    """
    name = type(tracer).__name__
    if name == "JVPTracer" and type(getattr(tracer, "tangent", None)).__name__ == "JaxprTracer":
        return "grad"
    return _TRANSFORM_NAMES.get(name, name)


def jaxprs_in_params(params: dict) -> list:
    """The sub-jaxprs of an equation's params (scan/cond/while/pjit bodies), as open ``Jaxpr`` objects.

    Public ``jax.extend.core.jaxprs_in_params`` where it exists (0.9+); ``jax._src.core``'s in 0.6-0.8.
    """
    from jax.extend import core as jc

    public = getattr(jc, "jaxprs_in_params", None)
    if public is not None:
        return list(public(params))
    from jax._src import core

    return list(core.jaxprs_in_params(params))


_UNREGISTER = {  # listener kind -> (public name, 0.6's private by-callback name)
    "duration": ("unregister_event_duration_listener", "_unregister_event_duration_listener_by_callback"),
    "event": ("unregister_event_listener", "_unregister_event_listener_by_callback"),
    "span": ("unregister_event_time_span_listener", "_unregister_event_time_span_listener_by_callback"),
    "scalar": ("unregister_scalar_listener", "_unregister_scalar_listener_by_callback"),
}


def unregister_listener(kind: str, callback: object) -> None:
    """Remove a ``jax.monitoring`` listener (``kind``: duration, event, span). Public since 0.7; 0.6 has
    only private by-callback functions. A listener that is not registered is ignored."""
    from jax import monitoring

    public, private = _UNREGISTER[kind]
    fn = getattr(monitoring, public, None)
    if fn is None:
        from jax._src import monitoring as private_monitoring

        fn = getattr(private_monitoring, private, None)
    if fn is None:
        return
    try:
        fn(callback)
    except (AssertionError, ValueError, KeyError):
        pass


def _hide_this_file_from_jax() -> None:
    """Keep the hook's frame out of JAX's user call sites and filtered tracebacks (this file only:
    jitscope's gallery programs are user code for ``inspect``)."""
    if _HIDDEN:
        return
    _HIDDEN.append(True)
    try:
        from jax._src import source_info_util, traceback_util

        source_info_util.register_exclusion(__file__)
        traceback_util.register_exclusion(__file__)
    except (ImportError, AttributeError) as e:  # cosmetic: call sites may show jitscope's frame
        _say_missing("hide_frames", e)


_SAID: set[str] = set()


def _say_missing(capability: str, err: BaseException) -> None:
    """One line on stderr, once per capability, naming what a missing JAX hook disables."""
    if capability in _SAID:
        return
    _SAID.add(capability)
    try:
        import jax

        ver = jax.__version__
    except Exception:
        ver = "?"
    print(f"jitscope: JAX {ver} (tested {' '.join(TESTED_JAX)}) lacks a hook ({err}); disabled: "
          f"{CAPABILITY_USES.get(capability, capability)}", file=sys.stderr)


def array_committed(x: object) -> bool:
    """Whether a jax.Array is committed to its device(s) (then jit keys on its sharding)."""
    return bool(getattr(x, "_committed", True))

# --- inspect: jaxpr source info ---------------------------------------------
# Checked on JAX 0.10.2. ``jax.extend.source_info_util`` is public but does not export
# the user-frame filter, so the filter (``is_user_filename``) comes from jax._src.

_JITSCOPE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# The demo's case studies (jitscope/gallery) are the user's code of the demo: their lines are shown.
_GALLERY_DIR = f"{_JITSCOPE_DIR}gallery{os.sep}"
_USER_FILE_CACHE: dict[str, bool] = {}


def _jaxlib_dir() -> str | None:
    f = getattr(sys.modules.get("jaxlib"), "__file__", None)
    return os.path.dirname(os.path.abspath(f)) + os.sep if f else None


def _not_library(path: str) -> bool:
    """Fallback user-file test when JAX offers none: not under jax, site-packages or the stdlib."""
    import sysconfig

    jax_dir = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["jax"].__file__ or "")))
    stdlib = sysconfig.get_paths().get("stdlib", "")
    return not (path.startswith(jax_dir + os.sep) or f"{os.sep}site-packages{os.sep}" in path
                or (stdlib and path.startswith(stdlib + os.sep)))


def is_user_file(filename: str) -> bool:
    """True for the user's files: not JAX or jaxlib, not the standard library or frozen code,
    not jitscope itself (except ``jitscope/gallery``, the demo's user code).

    The one user-code filter of jitscope (inspect's source lines, watch's call sites and
    user functions, trace effects); ``<stdin>``, ``<string>`` and IPython cells are user code.
    """
    known = _USER_FILE_CACHE.get(filename)
    if known is None:
        from jax._src import source_info_util

        if filename.startswith("<"):
            known = not filename.startswith("<frozen")
        else:
            path = os.path.abspath(filename)
            jaxlib = _jaxlib_dir()
            jax_says = getattr(source_info_util, "is_user_filename", None)
            known = (bool(jax_says(path) if jax_says is not None else _not_library(path))
                     and (not path.startswith(_JITSCOPE_DIR) or path.startswith(_GALLERY_DIR))
                     and not (jaxlib and path.startswith(jaxlib)))
        _USER_FILE_CACHE[filename] = known
    return known


class StackCache:
    """User call stacks of jaxpr equations, cached per traceback.

    ``stack(eqn)`` is a tuple of frames ``(file, function, line, column, end_line, end_column)``,
    outermost first, holding only user frames. When ``entry_code`` (the traced function's code
    object) appears in the stack, frames outside it (the caller of jit, jitscope) are dropped,
    so ``stack[0]`` is the line of the traced function that produced the equation.
    Equal tracebacks (every iteration of a Python loop) hit the cache, which keeps the
    bloat detector linear and cheap on 100k-equation jaxprs.
    """

    def __init__(self, entry_code: object = None) -> None:
        self.entry_code = entry_code
        self._by_tb: dict[object, tuple] = {}
        self._by_frame: dict[tuple[object, int], tuple] = {}

    def stack(self, eqn: object) -> tuple:
        tb = getattr(getattr(eqn, "source_info", None), "traceback", None)
        if tb is None:
            return ()
        try:
            hit = self._by_tb.get(tb)
        except TypeError:  # unhashable traceback on some version: no cache
            hit = None
        if hit is not None:
            return hit
        out = self._compute(tb)
        try:
            self._by_tb[tb] = out
        except TypeError:
            pass
        return out

    def _compute(self, tb: object) -> tuple:
        codes, lastis = tb.raw_frames()  # type: ignore[attr-defined]  # innermost first
        frames = []
        for code, lasti in zip(codes, lastis, strict=False):
            if not is_user_file(code.co_filename):
                continue
            key = (code, lasti)
            fr = self._by_frame.get(key)
            if fr is None:
                start, col, end, end_col = tb.code_addr2location(code, lasti)  # type: ignore[attr-defined]
                fr = (code.co_filename, code.co_qualname, start, col, end, end_col)
                self._by_frame[key] = fr
            frames.append(fr)
            if self.entry_code is not None and code is self.entry_code:
                break
        frames.reverse()
        return tuple(frames)


def exception_user_frames(exc: BaseException) -> list[tuple[str, str, int]]:
    """User frames ``(file, function, line)`` of an exception's traceback, outermost first.

    JAX filters its own frames from tracebacks it re-raises; this also walks the
    ``__cause__``/``__context__`` chain, where JAX keeps the unfiltered stack.
    """
    import traceback as _tb

    seen: set[int] = set()
    best: list[tuple[str, str, int]] = []
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        frames = [(f.filename, f.name, f.lineno or 0) for f in _tb.extract_tb(e.__traceback__)
                  if is_user_file(f.filename)]
        if len(frames) > len(best):
            best = frames
        e = e.__cause__ or e.__context__
    return best


def unwrap_jit(fn: object) -> tuple[object, tuple[int, ...], tuple[str, ...]] | None:
    """For a ``jax.jit`` object: (wrapped function, static_argnums, static_argnames); else None.

    Checked on JAX 0.10.2, where the jit object keeps its options in the private ``_jit_info``.
    """
    info = getattr(fn, "_jit_info", None)
    wrapped = getattr(fn, "__wrapped__", None)
    if info is None or wrapped is None:
        return None
    return (wrapped, tuple(getattr(info, "static_argnums", ()) or ()),
            tuple(getattr(info, "static_argnames", ()) or ()))


def jit_shardings(fn: object) -> dict[str, object]:
    """The ``in_shardings`` / ``out_shardings`` a ``jax.jit`` object was given, as ``jax.jit`` keyword
    arguments (absent when not given or not readable), so a re-jit of its function keeps them.

    Checked on JAX 0.10.2: ``_jit_info`` keeps them as flattened leaves and a treedef; an
    unspecified one is a leaf of JAX's ``UnspecifiedValue`` type.
    """
    import jax

    info = getattr(fn, "_jit_info", None)
    out: dict[str, object] = {}
    for key in ("in_shardings", "out_shardings"):
        leaves = getattr(info, f"{key}_leaves", None)
        treedef = getattr(info, f"{key}_treedef", None)
        if leaves is None or treedef is None or any(type(v).__name__ == "UnspecifiedValue" for v in leaves):
            continue
        if key == "in_shardings" and not getattr(info, "user_specified_in_shardings", True):
            continue
        try:
            out[key] = jax.tree_util.tree_unflatten(treedef, list(leaves))
        except Exception:  # noqa: BLE001 - a layout this JAX spells differently: re-jit without it
            continue
    return out


# --- capability table ----------------------------------------------------------
# Each private hook above is feature-detected here (not by JAX version), so a JAX that
# moved one disables only the capability that needs it. Names and what each one enables:
# --- watch: the persistent compilation cache --------------------------------
# Checked on JAX 0.10.2. ``jax._src.cache_key.get`` builds the key from named components and, when
# its logger is enabled for DEBUG, logs each component's own sha256 ("get_cache_key hash of serialized
# <name>: <hex>") and each XLA flag it includes. ``jax._src.compiler`` logs the compile options (DEBUG),
# the hit or miss, and why ``_cache_write`` did not write (WARNING under jax_explain_cache_misses, else
# DEBUG); ``jax._src.compilation_cache`` logs the write, or a size or disabled-cache refusal. All on the
# compiling thread, before the backend-compile monitoring span ends. The texts are parsed here only.
CACHE_KEY_LOGGER = "jax._src.cache_key"
CACHE_LOGGERS = (CACHE_KEY_LOGGER, "jax._src.compiler", "jax._src.compilation_cache")

_CACHE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("component", r"get_cache_key hash of serialized (?P<name>.+?): (?P<hash>[0-9a-f]+)$"),
    ("xla_flag", r"Including XLA flag in cache key: (?P<flag>.*)$"),
    ("compile_options", r"get_compile_options: num_replicas=(?P<replicas>\d+) num_partitions=(?P<partitions>\d+)"),
    # The persistent cache's directory goes into the compile options' debug options (GPU caches XLA
    # keeps beside it), so moving the directory changes the key.
    ("xla_cache_dir", r"Enabling XLA (?P<what>autotuning|kernel) cache at '(?P<path>.*)'$"),
    ("hit", r"Persistent compilation cache hit for '(?P<module>[^']*)' with key '?(?P<key>[^']*)'?$"),
    ("miss", r"PERSISTENT COMPILATION CACHE MISS for '(?P<module>[^']*)' with key '?(?P<key>[^']*)'?$"),
    ("not_process_0", r"Not writing persistent cache entry since process_id != 0"),
    ("host_callbacks", r"Not writing persistent cache entry for '.*' because it uses host callbacks"),
    ("min_compile_time", r"Not writing persistent cache entry for '.*' because it took < (?P<min>[0-9.]+) "
                         r"seconds to compile \((?P<seconds>[0-9.]+)s\)"),
    ("compile_seconds", r"'.*' took at least (?P<min>[0-9.]+) seconds to compile \((?P<seconds>[0-9.]+)s\)"),
    ("min_entry_size", r"Not writing persistent cache entry with key .* since its size \((?P<bytes>\d+) bytes\) "
                       r"is less than threshold \((?P<min_bytes>-?\d+) bytes\)"),
    ("cache_disabled", r"Not writing persistent cache entry with key .* since cache is disabled"),
    ("written", r"Writing .* to persistent compilation cache with key"),
)
_CACHE_RES: list = []


def parse_cache_log(logger_name: str, message: str) -> tuple[str, dict[str, str]] | None:
    """What one of JAX's persistent-cache log lines says: ``(kind, fields)`` or None for others.

    Kinds: ``component`` (name, hash), ``xla_flag`` (flag), ``compile_options`` (replicas,
    partitions), ``xla_cache_dir`` (what, path), ``hit``/``miss`` (module, key), ``written``, ``compile_seconds`` (min, seconds) and
    the reasons not to write: ``not_process_0``, ``host_callbacks``, ``min_compile_time`` (min,
    seconds), ``min_entry_size`` (bytes, min_bytes), ``cache_disabled``. ``logger_name`` is unused
    today; it is passed so a JAX that moves a message between loggers changes only this function.
    """
    import re

    if not _CACHE_RES:
        _CACHE_RES.extend((kind, re.compile(rx)) for kind, rx in _CACHE_PATTERNS)
    for kind, rx in _CACHE_RES:
        m = rx.search(message)
        if m is not None:
            return kind, m.groupdict()
    return None


def cache_key_logging() -> str | None:
    """None when this JAX logs per-component cache-key hashes where ``parse_cache_log`` reads them;
    else why not (``watch`` then records hit/miss/written without the key's components)."""
    try:
        from jax._src import cache_key
    except ImportError as e:
        return f"jax._src.cache_key is missing ({e})"
    if getattr(getattr(cache_key, "logger", None), "name", None) != CACHE_KEY_LOGGER:
        return f"jax._src.cache_key has no logger named {CACHE_KEY_LOGGER}"
    if not callable(getattr(cache_key, "_log_cache_key_hash", None)):
        return "jax._src.cache_key._log_cache_key_hash is missing (no per-component hashes logged)"
    return None


def say_cache_key_missing() -> None:
    """The one notice ``watch`` prints when this JAX cannot give the cache key's components."""
    why = cache_key_logging()
    if why is not None:
        _say_missing("cache_key_log", RuntimeError(why))


CAPABILITY_USES = {
    "cache_key_log": "watch: the persistent-cache key's components per compile, and so `jitscope diff` naming "
                     "the one that changed (jax._src.cache_key's DEBUG log of each component's hash)",
    "distributed_kv": "watch in a jax.distributed job: compile sequences compared live across processes "
                      "(the coordination service's key-value store, jax._src.distributed.global_state.client)",
    "jit_call_hook": "watch: which function and arguments caused each compile (jax._src.pjit._infer_params)",
    "hide_frames": "watch/inspect: jitscope's own frame hidden from JAX call sites "
                   "(jax._src.source_info_util / traceback_util.register_exclusion)",
    "unwrap_jit": "compare/lint: options of a jax.jit object (its private _jit_info)",
    "stage_hook": "watch: programs JAX compiles outside the user's jit call (grad's backward program, eager "
                  "lax.cond/while/scan) counted as the user's; program fingerprints (duplicate compiles JW403/"
                  "JW404, diff's program comparison); watch --dump: each compile's jaxpr, StableHLO and optimised HLO "
                  "(jax._src.interpreters.mlir.lower_jaxpr_to_module, jax._src.compiler.compile_or_get_cached)",
    "fastpath_hook": "watch: calls that never reach the C++ dispatch fast path, and why (JW501; "
                     "jax._src.pjit._get_fastpath_data)",
    "execute_frame": "watch --stall-after: a first execution that blocks the calling thread (host callbacks) "
                     "named as a stall (jax._src.interpreters.pxla.ExecuteReplicated.__call__)",
    "monitoring": "watch: trace/lower/compile durations (jax.monitoring duration listeners)",
    "user_frames": "watch/inspect: telling the user's files from JAX's (jax._src.source_info_util."
                   "is_user_filename; without it a path-based filter is used)",
}


def capabilities() -> dict[str, tuple[bool, str]]:
    """Which private hooks this JAX offers: ``{name: (available, why)}``; never raises."""
    out: dict[str, tuple[bool, str]] = {}

    def check(name: str, probe) -> None:  # type: ignore[no-untyped-def]
        try:
            why = probe()
        except Exception as e:  # any failure means: this hook is unavailable, say why
            out[name] = (False, f"{type(e).__name__}: {e}")
            return
        out[name] = (why is None, why or "ok")

    def jit_call_hook() -> str | None:
        from jax._src import pjit
        return None if callable(getattr(pjit, _PJIT_HOOK, None)) else \
            f"jax._src.pjit.{_PJIT_HOOK} is missing"

    def hide_frames() -> str | None:
        from jax._src import source_info_util, traceback_util
        for mod in (source_info_util, traceback_util):
            if not callable(getattr(mod, "register_exclusion", None)):
                return f"{mod.__name__}.register_exclusion is missing"
        return None

    def unwrap() -> str | None:
        import jax
        f = jax.jit(lambda x: x)
        return None if unwrap_jit(f) is not None else "jax.jit objects have no _jit_info"

    def monitoring() -> str | None:
        import jax.monitoring as m
        return None if callable(getattr(m, "register_event_duration_secs_listener", None)) else \
            "jax.monitoring.register_event_duration_secs_listener is missing"

    check("jit_call_hook", jit_call_hook)
    check("hide_frames", hide_frames)
    check("unwrap_jit", unwrap)

    def stage_hook() -> str | None:
        from jax._src import compiler
        from jax._src.interpreters import mlir
        for mod, name in ((mlir, "lower_jaxpr_to_module"), (compiler, "compile_or_get_cached")):
            if not callable(getattr(mod, name, None)):
                return f"{mod.__name__}.{name} is missing"
        return None

    check("stage_hook", stage_hook)

    def fastpath_hook() -> str | None:
        from jax._src import pjit
        return None if callable(getattr(pjit, _FASTPATH_HOOK, None)) else \
            f"jax._src.pjit.{_FASTPATH_HOOK} is missing"

    check("fastpath_hook", fastpath_hook)

    def execute_frame() -> str | None:
        from jax._src.interpreters import pxla
        cls = getattr(pxla, "ExecuteReplicated", None)
        return None if hasattr(vars(cls).get("__call__") if cls else None, "__code__") else \
            "jax._src.interpreters.pxla.ExecuteReplicated.__call__ is missing"

    check("execute_frame", execute_frame)
    def user_frames() -> str | None:
        from jax._src import source_info_util
        return None if callable(getattr(source_info_util, "is_user_filename", None)) else \
            "jax._src.source_info_util.is_user_filename is missing"

    check("cache_key_log", cache_key_logging)
    check("monitoring", monitoring)
    check("user_frames", user_frames)
    check("distributed_kv", _distributed_kv_missing)
    return out


# --- watch in a jax.distributed job -------------------------------------------------
# Checked on JAX 0.10.2 (0.6 - 0.10 have the same State fields and client methods). The process
# index is read from ``jax._src.distributed.global_state``, never from ``jax.process_index()``:
# that one initialises the backends, and a backend started before ``jax.distributed.initialize``
# makes the program's own initialize fail. The key-value store is the coordination service's
# (``DistributedRuntimeClient.key_value_set`` / ``blocking_key_value_get`` / ``key_value_dir_get``).

_KV_METHODS = ("key_value_set", "blocking_key_value_get", "key_value_dir_get")


def distributed_process() -> tuple[int, int] | None:
    """``(process_index, process_count)`` once ``jax.distributed.initialize`` ran in this process,
    else None. Reads state only: never imports or starts anything (cheap enough for every compile).
    Still answers after JAX's exit-time shutdown, which drops the client but keeps the numbers."""
    mod = sys.modules.get("jax._src.distributed")
    state = getattr(mod, "global_state", None)
    if state is None:
        return None
    count = getattr(state, "num_processes", 1)
    if getattr(state, "client", None) is None and not (isinstance(count, int) and count > 1):
        return None
    index = getattr(state, "process_id", None)
    if not isinstance(index, int) or not isinstance(count, int):
        return None
    return index, count


class KeyValueStore:
    """The coordination service's key-value store of a ``jax.distributed`` job, as three calls.

    Values are strings. Every call may raise (the service is gone at exit, a peer died): callers
    catch ``Exception`` and degrade, they never stop the user's program.
    """

    def __init__(self, client: object) -> None:
        self._client = client

    def set(self, key: str, value: str) -> None:
        self._client.key_value_set(key, value, allow_overwrite=True)  # type: ignore[attr-defined]

    def get(self, key: str, timeout_s: float) -> str:
        """The value, waiting up to ``timeout_s`` for a peer to set it (raises when it does not)."""
        return str(self._client.blocking_key_value_get(key, max(1, int(timeout_s * 1000))))  # type: ignore[attr-defined]

    def dir(self, prefix: str) -> list[tuple[str, str]]:
        """Every ``(key, value)`` under ``prefix`` (a directory: ends with ``/``)."""
        return [(str(k), str(v)) for k, v in self._client.key_value_dir_get(prefix)]  # type: ignore[attr-defined]


def distributed_store() -> KeyValueStore | None:
    """The job's key-value store, or None (not a ``jax.distributed`` job, already shut down, or a
    JAX whose client lacks the calls: then one line says what is disabled)."""
    mod = sys.modules.get("jax._src.distributed")
    client = getattr(getattr(mod, "global_state", None), "client", None)
    if client is None:
        return None
    missing = [m for m in _KV_METHODS if not callable(getattr(client, m, None))]
    if missing:
        _say_missing("distributed_kv", AttributeError(f"DistributedRuntimeClient has no {', '.join(missing)}"))
        return None
    return KeyValueStore(client)


def _distributed_kv_missing() -> str | None:
    from jax._src import distributed

    state = getattr(distributed, "global_state", None)
    for name in ("process_id", "num_processes", "client"):
        if not hasattr(type(state), name) and not hasattr(state, name):
            return f"jax._src.distributed.global_state has no {name}"
    try:
        from jax._src.lib import _jax as ext
    except ImportError:
        from jax._src.lib import xla_extension as ext  # type: ignore[no-redef]  # JAX < 0.7
    cls = getattr(ext, "DistributedRuntimeClient", None)
    missing = [m for m in _KV_METHODS if not callable(getattr(cls, m, None))]
    return f"DistributedRuntimeClient has no {', '.join(missing)}" if missing else None
