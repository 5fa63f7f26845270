"""Ground of the compat package: the tested range, one-line notices for missing hooks, listener
removal, and hiding the package's own frames from JAX."""

from __future__ import annotations

import os
import sys

# The tested range (README "JAX versions", pyproject.toml's comment; tests/test_jaxcompat.py checks they agree):
# the whole suite runs on 0.10.2 (`make test`) and 0.12.0.1 (`make test-newest`, Python 3.13), the JAX-touching
# tests on 0.8.3 and 0.6.2 (`make test-matrix`). Outside it, measuring commands say so once (version_notice).
TESTED_MINORS = ((0, 6), (0, 12))
TESTED_RANGE = f"{TESTED_MINORS[0][0]}.{TESTED_MINORS[0][1]} - {TESTED_MINORS[1][0]}.{TESTED_MINORS[1][1]}"
TESTED_JAX = (f">={TESTED_MINORS[0][0]}.{TESTED_MINORS[0][1]}", f"<{TESTED_MINORS[1][0]}.{TESTED_MINORS[1][1] + 1}")
FULL_SUITE_JAX = ("0.10.2", "0.12.0.1")



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


_HIDDEN: list[bool] = []


def _hide_this_file_from_jax() -> None:
    """Keep the hooks' frames out of JAX's user call sites and filtered tracebacks (this package's
    files only: jitscope's gallery programs are user code for ``inspect``)."""
    if _HIDDEN:
        return
    _HIDDEN.append(True)
    try:
        from jax._src import source_info_util, traceback_util

        package = os.path.dirname(os.path.abspath(__file__)) + os.sep  # a path prefix: every file here
        source_info_util.register_exclusion(package)
        traceback_util.register_exclusion(package)
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


def tracing_context_names() -> tuple[str, ...] | None:
    """The values of JAX's tracing context (``jax._src.config.trace_context()``), which every jit cache key
    includes, by name (``trace_context_names``, 0.10+) or as ``#0``, ``#1``, ... (0.6 - 0.8); None on a JAX
    without it. A module that registers a config option ``include_in_trace_context`` grows it when first
    imported, and every function compiled before then compiles again (0.12: ``import jax.extend``)."""
    try:
        from jax._src import config

        ctx = config.trace_context()
        names = getattr(config, "trace_context_names", None)
        listed = tuple(names()) if callable(names) else ()
    except Exception:  # noqa: BLE001 - another JAX: cannot say
        return None
    return listed if len(listed) == len(ctx) else tuple(f"#{i}" for i in range(len(ctx)))


def array_committed(x: object) -> bool:
    """Whether a jax.Array is committed to its device(s) (then jit keys on its sharding)."""
    return bool(getattr(x, "_committed", True))


def treedef_node_layout(tree: object) -> str | None:
    """``'dataclass'`` when ``tree``'s root is a ``register_dataclass`` node and this jaxlib cannot build a
    ``PyTreeDef`` from a node's data (``PyTreeDef.from_node_data_and_children``, absent on JAX 0.6), else None.

    Without that constructor the warm-up's runtime builds treedefs from their pickled form, a list of nodes
    each with its kind, and a registered dataclass node (kind 7) has the same node data as any other custom
    node (kind 6): the kind is read here from the program's own treedef (``__getstate__``; checked on 0.6.2)."""
    cls = type(tree)
    if hasattr(cls, "from_node_data_and_children") or hasattr(cls, "make_from_node_data_and_children"):
        return None
    try:
        kind = tree.__getstate__()[1][-1][0]  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - not the layout seen on 0.6: no hint (the rebuilt treedef then differs)
        return None
    return "dataclass" if kind == 7 else None


# What each private hook enables (the capability table in capabilities.py checks each one).
CAPABILITY_USES = {
    "cache_key_log": "watch: the persistent-cache key's components per compile, and so `jitscope diff` naming "
                     "the one that changed (jax._src.cache_key's DEBUG log of each component's hash)",
    "distributed_kv": "watch in a jax.distributed job: compile sequences compared live across processes "
                      "(the coordination service's key-value store, jax._src.distributed.global_state.client)",
    "jit_call_hook": "watch: which function and arguments caused each compile (jax._src.pjit._infer_params)",
    "trace_hook": "watch: trace evidence (which of the program's functions ran under a trace, with which "
                  "arguments traced; jax._src.linear_util.WrappedFun.call_wrapped, jax._src.interpreters.ad.linearize)",
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
