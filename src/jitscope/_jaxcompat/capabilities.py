"""The capability table: each private hook feature-detected, so a JAX that moved one disables only what needs it."""

from __future__ import annotations

from ._base import CAPABILITY_USES as CAPABILITY_USES
from ._base import TESTED_MINORS, TESTED_RANGE

# --- capability table ----------------------------------------------------------
# Each private hook above is feature-detected here (not by JAX version), so a JAX that
# moved one disables only the capability that needs it. Names and what each one enables:


def capabilities() -> dict[str, tuple[bool, str]]:
    """Which private hooks this JAX offers: ``{name: (available, why)}``; never raises."""
    from . import cache, dispatch, distributed, hooks, source, tracing  # read at call time: tests rename the hooks
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
        return None if callable(getattr(pjit, hooks._PJIT_HOOK, None)) else \
            f"jax._src.pjit.{hooks._PJIT_HOOK} is missing"

    def hide_frames() -> str | None:
        from jax._src import source_info_util, traceback_util
        for mod in (source_info_util, traceback_util):
            if not callable(getattr(mod, "register_exclusion", None)):
                return f"{mod.__name__}.register_exclusion is missing"
        return None

    def unwrap() -> str | None:
        import jax
        f = jax.jit(lambda x: x)
        return None if source.unwrap_jit(f) is not None else "jax.jit objects have no _jit_info"

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
        return None if callable(getattr(pjit, dispatch._FASTPATH_HOOK, None)) else \
            f"jax._src.pjit.{dispatch._FASTPATH_HOOK} is missing"

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

    check("trace_hook", tracing.trace_hook_missing)
    check("cache_key_log", cache.cache_key_logging)
    check("monitoring", monitoring)
    check("user_frames", user_frames)
    check("distributed_kv", distributed._distributed_kv_missing)
    return out


def version_notice() -> str | None:
    """One line when the installed JAX is outside the tested range (``TESTED_RANGE``) or lacks a hook, else None."""
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
    return (f"JAX {jax.__version__} is {where} jitscope's tested range ({TESTED_RANGE}){lacks} "
            "(`jitscope doctor` says what each one disables)")
