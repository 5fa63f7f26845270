"""The catalogue of fixes: one sentence per pitfall, phrased for the wrapper the user wrote.

lint (``JSxxx``), watch (``JWxxx``) and inspect all phrase their fixes from here, so the same
pitfall gets the same advice from every command (issue #24 item 5). A fix names only options the
user's wrapper has (``known.wrapper_options``) and only APIs that do not themselves cost
what the fix removes: ``jax.debug.print`` is not offered as *the* fix for a trace-time ``print``,
because a host callback takes every call of the step off JAX's C++ fast path (watch's JW501,
5.7 against 2.4 ms per call measured in issue #24); it is named as the debugging tool it is.

Each ``Advice`` has a ``title`` (imperative, lower case: it ends a lint message after ``"; "`` and
is a watch/inspect ``Fix.title``) and a ``why`` (the mechanism, a ``Fix.description``).

Where each pitfall is phrased (keep this list whole when adding a caller):

===========================  =====================  ===============================  ==========================
pitfall                      lint                   watch                            inspect
===========================  =====================  ===============================  ==========================
print at trace time          JS401                  JW201 (print, stream)            trace-side-effect
logging at trace time        --                     JW201 (logging)                  trace-side-effect
outer state mutated          JS403                  JW201 (container)                trace-side-effect
global/nonlocal assigned     JS402                  JW201 (global, nonlocal)         trace-side-effect
captured array (constant)    JS501                  JW301                            stale-global/captured-closure
stale capture                JS502, JS503           JW302                            stale-global/captured-closure
unrolled Python loop         JS202                  JW401 (bloat.py's fix)           graph-bloat (bloat.py)
jit rebuilt (loop, per call) JS203, JS204           JW403, fix "create once"         --
static value recompiles      --                     fix "stop recompiling", JW403    --
value needed concrete        JS101, JS103 (hint)    JW101 (tracer_errors)            tracer errors (same)
===========================  =====================  ===============================  ==========================
"""

from __future__ import annotations

from dataclasses import dataclass

from .known import lookup


@dataclass(frozen=True)
class Advice:
    """One fix: ``title`` (what to do), ``why`` (the mechanism)."""

    title: str
    why: str


_FAST_PATH = ("jax.debug.print (and jax.debug.callback) inside the function run on every call, but each is a host "
              "callback: every call then leaves JAX's C++ fast dispatch path (watch's JW501), so keep them for "
              "debugging, out of hot steps.")

_OUTSIDE = "return the value and print or log it outside the jitted function (jax.debug.print only while debugging)"
TRACE_PRINT = Advice(
    _OUTSIDE, "print() runs only while JAX traces: once per compile, showing tracers, not values. " + _FAST_PATH)
TRACE_STREAM = Advice(
    "return the value and write it outside the jitted function",
    "the write runs only while tracing, never when the compiled program runs. " + _FAST_PATH)
TRACE_LOGGING = Advice(
    _OUTSIDE, "logging calls run only while tracing; the compiled function never logs. " + _FAST_PATH)
OUTER_MUTATION = Advice(
    "return the values instead of mutating outer state",
    "the mutation happens once per trace, not per call, and stores tracers (leaked tracers).")
GLOBAL_ASSIGNMENT = Advice(
    "return the value instead of assigning a global",
    "the assignment runs only while tracing; later calls of the compiled function skip it.")
NONLOCAL_ASSIGNMENT = Advice(
    "return the value instead of assigning a nonlocal",
    "the assignment runs only while tracing; later calls of the compiled function skip it.")
# A print or f-string that needs a traced value's concrete value (a tracer error, JW101/inspect).
PRINT_TRACED_VALUE = Advice(
    "print the value outside the jitted function (return it), or use jax.debug.print while debugging",
    "print() and f-strings need concrete values, which a traced value does not have. " + _FAST_PATH)
CREATE_ONCE = Advice(
    "create the jitted function once (outside the loop or the calling function) and reuse it",
    "jit caches by function identity: a jax.jit(...) or a closure built again (in a loop, per call) is a new "
    "function and compiles again, even when its code and bindings are the same.")
ROLL_LOOP = Advice(
    "use lax.fori_loop (or lax.scan to keep per-step outputs)",
    "a Python loop is unrolled while tracing: each iteration adds its equations to the program and compile time "
    "grows with the trip count; lax.fori_loop/lax.scan trace the body once.")
VECTORISE = Advice(
    "use jax.vmap (or vectorised jnp operations)",
    "independent iterations are traced one by one; jax.vmap traces the body once.")


def effect(kind: str) -> Advice:
    """The fix for a trace-time side effect of ``kind`` (``collect.trace_effects``: ``print``, ``stream``,
    ``logging``, ``container``, ``global``, ``nonlocal``)."""
    return {"print": TRACE_PRINT, "stream": TRACE_STREAM, "logging": TRACE_LOGGING, "container": OUTER_MUTATION,
            "global": GLOBAL_ASSIGNMENT, "nonlocal": NONLOCAL_ASSIGNMENT}.get(
        kind, Advice("move it out of the jitted function", "it runs once per trace, not per call."))


def pass_as_argument(name: str, stale: bool = False) -> Advice:
    """The fix for an array captured from a global or closure (``stale``: it was rebound since)."""
    if stale:
        return Advice(f"pass '{name}' as an argument",
                      "jit reads globals and closures once, at trace time: the compiled program keeps the old value "
                      "until something else (a new input shape) forces a retrace. An argument is read on every call.")
    return Advice(f"pass '{name}' as an argument",
                  "a captured array is copied into the program as a constant: it grows compile time and memory, and "
                  "the program keeps the value it saw at trace time. An argument is read on every call.")


def builtin_reduction(builtin: str, repl: str) -> Advice:
    """The fix for a builtin ``sum``/``max``/... over a traced array (unrolled one element at a time)."""
    return Advice(f"use {repl}", f"builtin {builtin}() iterates the array element by element; {repl} is a single "
                  "reduction.")


def make_static(arg: str, wrapper: str = "jax.jit") -> str:
    """How to make ``arg`` a compile-time (static) value under ``wrapper``."""
    t = lookup(wrapper)
    if t is not None and t.static_by_type:
        return (f"under {wrapper} a non-array value is static already: pass {arg} as a Python value "
                f"(int, bool, str) rather than as an array")
    if t is not None and t.static_options:
        opt = "static_argnames" if "static_argnames" in t.static_options else t.static_options[0]
        value = f"('{arg}',)" if opt.endswith("names") else "(<position of " + arg + ">,)"
        return f"mark {arg} static: {wrapper}(f, {opt}={value})"
    return f"make {arg} a Python value outside the traced function (close over it)"


def make_traced(arg: str, wrapper: str = "jax.jit") -> str:
    """How to stop ``arg`` from being a compile-time value (each new value compiles again)."""
    t = lookup(wrapper)
    if t is not None and t.static_by_type:
        return f"pass {arg} as an array (jnp.asarray({arg})) so that {wrapper} traces it instead of keying on its value"
    if t is not None and t.static_options:
        return f"drop {arg} from {'/'.join(t.static_options)} so that it is traced"
    if t is not None and t.compiles:  # a wrapper with no static option: the value must be an argument
        return f"pass {arg} as an array argument (jnp.asarray({arg}))"
    return f"pass {arg} as an argument of the traced function instead of closing over it"


def static_value_ignored(arg: str, wrapper: str = "jax.jit") -> Advice:
    """The fix for a static argument whose values compile the same program (a duplicate compile)."""
    return Advice(make_traced(arg, wrapper), "the static value does not change the compiled program, yet each "
                  "value is a new entry in jit's cache, traced and compiled again.")
