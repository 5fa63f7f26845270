"""The pitfall taxonomy (docs/pitfalls.md) in code: each class, whether it is observable at run time, the
watch codes (JWxxx) that report it and the lint rules (JSxxx) that see it, or why it is not observable.

The 39 classes follow the eight stages of a jitted call (call boundary, cache lookup, tracing, lowering and
compile, dispatch, execution, result consumption, multi-process); docs/pitfalls.md gives each one's
definition, evidence, fix and the JAX documentation it comes from. ``tests/test_pitfalls_map.py`` checks that
every class observable at run time names a code that exists, that every code names a class, and that
docs/pitfalls.md lists the same mapping.

``finding_classes(finding)`` tells which classes one watch finding (a ``RuntimeFinding`` or its JSON dict) is
evidence of: one class where the code and its details say which, several where they cannot (a JW101
``ConcretizationTypeError`` is any of the concrete-value classes). ``benchmarks/pitfall_recall.py`` scores
recall with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PitfallClass:
    """One class of the taxonomy and jitscope's coverage of it."""

    name: str
    stage: str  # S1 call boundary ... S8 multi-process
    runtime: str  # "yes" | "partly" | "no": observable while the program runs
    watch: tuple[str, ...]  # JW codes that report it
    lint: tuple[str, ...]  # JS rules that see it statically
    not_observed: str = ""  # what of it is not observable at run time, and why (required when runtime != "yes")


_NOT_TRACED = ("a value JAX never sees (a Python branch, a host timer, a discarded result) leaves no event, "
               "no exception and no program")

CLASSES: tuple[PitfallClass, ...] = (
    PitfallClass("traced-control-flow", "S3", "yes", ("JW101",), ("JS101", "JS102")),
    PitfallClass("traced-to-python-scalar", "S3", "yes", ("JW101",), ("JS103",)),
    PitfallClass("numpy-on-tracer", "S3", "yes", ("JW101",), ("JS104", "JS105")),
    PitfallClass("traced-shape-or-static-param", "S3", "yes", ("JW101",), ("JS303", "JS304")),
    PitfallClass("data-dependent-shape", "S3", "yes", ("JW101",), ("JS301", "JS302")),
    PitfallClass("leaked-tracer", "S3", "yes", ("JW102", "JW101", "JW201"), ("JS402", "JS403")),
    PitfallClass("invalid-jit-argument", "S1", "yes", ("JW103",), ()),
    PitfallClass("unhashable-static-arg", "S1", "partly", ("JW107",), ("JS602", "JS604"),
                 "JAX's C++ dispatch hashes static arguments and raises the ValueError before any Python code of "
                 "JAX runs: watch sees it on Python 3.12+ (sys.monitoring's RAISE event, JW107), and on Python "
                 "3.11 only where it crosses a JAX API (a jitted call inside another trace, JW107) or ends the "
                 "program (the crash explanation, 'static-unhashable'); a caught one on 3.11 would need a trace "
                 "function on every frame. lint sees literal lists/dicts and unhashable classes"),
    PitfallClass("immutable-array-update", "S3", "partly", ("JW105",), ("JS601", "JS603"),
                 "x[i] = v raises and is reported (JW105); a discarded x.at[i].set(v) raises nothing: "
                 + _NOT_TRACED),
    PitfallClass("trace-time-side-effect", "S3", "yes", ("JW201",), ("JS401", "JS402", "JS403")),
    PitfallClass("stale-captured-value", "S3", "yes", ("JW302", "JW301", "JW602"), ("JS502", "JS503")),
    PitfallClass("captured-large-constant", "S4", "yes", ("JW301", "JW402"), ("JS501",)),
    PitfallClass("prng-key-reuse", "S3", "yes", ("JW601", "JW602", "JW101"), ()),
    PitfallClass("recompile-shape-change", "S2", "yes", ("JW405",), ()),
    PitfallClass("recompile-dtype-or-weak-type", "S2", "yes", ("JW403",), ("JS210",)),
    PitfallClass("recompile-static-arg-churn", "S2", "yes", ("JW403", "JW404"), ()),
    PitfallClass("recompile-identity-hashed-static", "S2", "yes", ("JW403",), ("JS604",)),
    PitfallClass("recompile-fresh-jit-object", "S2", "yes", ("JW403",), ("JS203", "JS204", "JS205", "JS206")),
    PitfallClass("recompile-baked-constant", "S2", "yes", ("JW404",), ()),
    PitfallClass("recompile-pytree-structure", "S2", "yes", ("JW403", "JW409"), ()),
    PitfallClass("recompile-sharding-or-placement", "S2", "yes", ("JW403",), ()),
    PitfallClass("recompile-config-context", "S2", "yes", ("JW406", "JW403"), ()),
    PitfallClass("recompile-cache-evicted", "S2", "yes", ("JW403",), ()),
    PitfallClass("eager-control-flow-retrace", "S2", "yes", ("JW403",), ()),
    PitfallClass("unrolled-python-loop", "S4", "yes", ("JW401", "JW402"), ("JS201", "JS202")),
    PitfallClass("slow-compile", "S4", "yes", ("JW402",), ()),
    PitfallClass("persistent-cache-miss", "S4", "yes", ("JW408",), ()),
    PitfallClass("compile-cache-memory-growth", "S4", "yes", ("JW407",), ()),
    PitfallClass("off-fast-path-dispatch", "S5", "yes", ("JW501", "JW506", "JW509"), ()),
    PitfallClass("dispatch-overhead", "S5", "yes", ("JW504", "JW509"), ()),
    PitfallClass("host-sync-in-loop", "S7", "yes", ("JW502", "JW503"), ("JS207",)),
    PitfallClass("implicit-host-transfer", "S1", "partly", ("JW505", "JW508"), (),
                 "the host-to-device copy of a NumPy argument happens in JAX's C++ dispatch with no Python hook on "
                 "a cached call (JAX_TRANSFER_GUARD=log prints every one, but changes the program's output); "
                 "watch sees the NumPy arrays a jitted call compiled for, and reports those a loop (around the "
                 "call or around a call of its function) passes unchanged (a name, an attribute or a container "
                 "argument's item the loop never rebinds, still held with the same contents at the end; JW505); the program's eager jnp.asarray, jnp.array and jax.device_put of NumPy data are timed "
                 "per line, and a line converting the same contents call after call, at a material share of the "
                 "time between its calls, is JW508; a fresh NumPy batch per iteration is new data that must "
                 "travel, not a pitfall by itself; not seen: a function compiled by a call before the loop (a "
                 "warm-up) that the loop then calls with the same data (the loop's calls run in C++ only), Python "
                 "lists and scalars (a Python scalar costs microseconds), and eager operations given NumPy operands (x + X_np)"),
    PitfallClass("async-timing-mistake", "S7", "partly", ("JW507",), (),
                 "watch wraps the clocks (time.perf_counter, time.time, time.monotonic and their _ns forms, "
                 "also when imported by name) and reports a closing read while a result made in the region is not "
                 "ready (JW507), in module code, in functions (before Python 3.13 the arrays made in the process "
                 "since the region began stand in for the frame's locals), and through a timing helper or a timer "
                 "context manager (filed at the user's line that called it); not seen: a region whose result "
                 "happens to be ready by then (a small program: harmless), timeit (it drops each result) and "
                 "timers other than the time module's (a C clock), and a timing that includes the first call's "
                 "compile"),
    PitfallClass("donation-misuse", "S6", "partly", ("JW104", "JW604"), (),
                 "a deleted array used again and one buffer in two donated arguments are reported where JAX's "
                 "Python runs (a read of the array, the call that compiles: JW104); passed again to a jitted "
                 "call whose executable is in jit's C++ cache (also through a new jax.jit object of the same "
                 "function), the executable's refusal is raised with no Python code of JAX on the way: watch "
                 "sees it on Python 3.12+ (sys.monitoring's RAISE event) and, caught by the program, not on "
                 "Python 3.11 (that would need a trace function on every frame)"),
    PitfallClass("device-memory-pressure", "S6", "partly", ("JW106",), (),
                 "an allocation failure is reported (JW106); the memory held short of failing needs a device "
                 "memory profile (jax.profiler.save_device_memory_profile), which watch does not take"),
    PitfallClass("x64-dtype-truncation", "S3", "yes", ("JW603",), ()),
    PitfallClass("jit-numerics-differ", "S6", "no", (), (),
                 "a numeric difference exists only against a reference computation (an eager or higher-precision "
                 "rerun), which would change what the program runs; `jitscope compare` measures it on request"),
    PitfallClass("silent-runtime-error", "S6", "no", (), (),
                 "a compiled program clamps indices and produces NaNs without raising; seeing it needs checkify or "
                 "jax_debug_nans, which change the program"),
    PitfallClass("multiprocess-divergence", "S8", "yes", (), (),
                 "reported by watch's process comparison (docs/multiprocess.md: the divergence line on stderr and "
                 "`jitscope merge`), not as a JW code: it needs every process's record"),
)

BY_NAME = {c.name: c for c in CLASSES}

# JW101 by JAX's error class (details["error"]); ConcretizationTypeError is any of the concrete-value classes.
_TRACER_ERROR_CLASSES = {
    "TracerBoolConversionError": {"traced-control-flow"},
    "TracerIntegerConversionError": {"traced-to-python-scalar"},
    "TracerArrayConversionError": {"numpy-on-tracer"},
    "NonConcreteBooleanIndexError": {"data-dependent-shape"},
    "UnexpectedTracerError": {"leaked-tracer"},
    "KeyReuseError": {"prng-key-reuse"},
    "ShapeFromTracer": {"traced-shape-or-static-param"},
    "ConcretizationTypeError": {"traced-control-flow", "traced-to-python-scalar", "traced-shape-or-static-param",
                                "data-dependent-shape"},
}
# JW403 by what differed in jit's cache key (details["key_difference"], words of duplicates.py's phrasing).
_KEY_DIFFERENCES = (
    ("weak type", {"recompile-dtype-or-weak-type"}),
    ("dtype", {"recompile-dtype-or-weak-type"}),
    ("sharding", {"recompile-sharding-or-placement"}),
    ("committed", {"recompile-sharding-or-placement"}),
    ("pytree", {"recompile-pytree-structure"}),
    ("keyword", {"recompile-pytree-structure"}),
    ("left out", {"recompile-pytree-structure"}),
    ("static", {"recompile-static-arg-churn", "recompile-identity-hashed-static"}),
    ("function object", {"recompile-fresh-jit-object", "recompile-identity-hashed-static"}),
    ("outside jit", {"eager-control-flow-retrace"}),
    ("nothing", {"recompile-cache-evicted", "recompile-config-context"}),
)


def classes_of_code(code: str) -> set[str]:
    """Every class a code can report (the taxonomy's mapping)."""
    return {c.name for c in CLASSES if code in c.watch}


def finding_classes(finding: Any) -> set[str]:
    """The classes one watch finding is evidence of (a ``RuntimeFinding`` or its JSON dict)."""
    get = finding.get if isinstance(finding, dict) else lambda k, d=None: getattr(finding, k, d)
    code = str(get("code", ""))
    details = get("details") or {}
    if code == "JW101":
        return set(_TRACER_ERROR_CLASSES.get(str(details.get("class") or ""), ())) or \
            set(_TRACER_ERROR_CLASSES.get(str(details.get("error") or ""), ())) or classes_of_code(code)
    if code == "JW201":
        # A store into outer state holds a tracer of the trace: the side effect is also the leak.
        kinds = {"global", "nonlocal", "container", "attribute"}
        return {"trace-time-side-effect", "leaked-tracer"} if details.get("kind") in kinds \
            else {"trace-time-side-effect"}
    if code == "JW403":
        what = str(details.get("key_difference") or "").lower()
        found: set[str] = set()
        for words, classes in _KEY_DIFFERENCES:
            if words in what:
                found |= classes
        return found or classes_of_code(code)
    if code == "JW404":
        # constants baked in; through an eager lax.cond/scan/while_loop (its closure bodies traced at every call)
        # the recompile is also that class's, whose fix (jit the caller) is the one JW404 then gives
        eager = "outside jit" in str(details.get("key_difference") or "").lower()
        return {"recompile-baked-constant", "recompile-static-arg-churn"} | \
            ({"eager-control-flow-retrace"} if eager else set())
    if code == "JW402":
        # "unrolled" is analyze/compile_cost.py's cause; "bloat" what runs before it recorded
        return {"slow-compile", "unrolled-python-loop"} if details.get("cause") in ("unrolled", "bloat") else \
            {"slow-compile", "captured-large-constant"} if details.get("cause") == "constants" else {"slow-compile"}
    if code == "JW301":
        return {"captured-large-constant", "stale-captured-value"}
    return classes_of_code(code)
