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
jit per object (self bound)  --                     JW403, "jit once outside"        --
static value recompiles      --                     fix "stop recompiling", JW403    --
value needed concrete        JS101, JS103 (hint)    JW101 (tracer_errors)            tracer errors (same)
===========================  =====================  ===============================  ==========================
"""

from __future__ import annotations

from dataclasses import dataclass

from .known import lookup, registry


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
JIT_DISABLED = Advice(
    "turn jax_disable_jit off (remove jax.config.update('jax_disable_jit', True), or scope it with "
    "`with jax.disable_jit():` around the code being debugged)",
    "with it on, every jitted function runs op by op: one dispatch per operation and no fusion, so a step costs "
    "many times its compiled time.")
ATTRIBUTE_ASSIGNMENT = Advice(
    "return the new value and assign it outside the jitted function",
    "an attribute set on self (or on a static argument) runs only while tracing: later calls of the compiled "
    "function skip it, and a traced value stored there is a leaked tracer.")
# A print or f-string that needs a traced value's concrete value (a tracer error, JW101/inspect).
PRINT_TRACED_VALUE = Advice(
    "print the value outside the jitted function (return it), or use jax.debug.print while debugging",
    "print() and f-strings need concrete values, which a traced value does not have. " + _FAST_PATH)
CREATE_ONCE = Advice(
    "create the jitted function once (outside the loop or the calling function) and reuse it",
    "jit caches by function identity: a jax.jit(...) or a closure built again (in a loop, per call) is a new "
    "function and compiles again, even when its code and bindings are the same.")
JIT_PER_OBJECT = Advice(
    "jit the method once, outside the object (jax.jit(Cls.method) at class or module level, or "
    "@partial(jax.jit, static_argnums=0) with __hash__/__eq__ by value), and pass the object as a pytree "
    "(register its arrays as leaves) or as that static argument",
    "a jax.jit(self.method) or a jitted closure over self built in __init__ is a new function for each new object: "
    "jit caches by function object, so every new object traces and compiles the same program again.")
REUSE_OBJECT = Advice(
    "create the object once and reuse it (its class jits its methods per object)",
    "the library jits a bound method or a closure over the object for each new object: jit caches by function "
    "object, so every new object traces and compiles the same program again; one object compiles once.")
REUSE_STATIC_OBJECT = Advice(
    "build the static object once (outside the loop or the function that calls) and pass that same object every "
    "call, or close over it instead of passing it",
    "a tuple or frozen dataclass of functions (an optax GradientTransformation) hashes and compares its functions, "
    "and functions hash by identity: a rebuilt one holds new closures, so it is a new entry in jit's cache, traced "
    "and compiled again into the same program. No __eq__/__hash__ can make two closures equal, and a tuple of "
    "functions cannot be traced, so it must stay static (or be closed over).")
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
            "global": GLOBAL_ASSIGNMENT, "nonlocal": NONLOCAL_ASSIGNMENT, "attribute": ATTRIBUTE_ASSIGNMENT}.get(
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


def hash_static_by_value(arg: str, attribute: str) -> Advice:
    """The fix for a static argument hashed by identity whose attribute a compiled trace read and that changed
    since (JW302 through ``static_argnums``: jit's cache key is the object, not its state)."""
    return Advice(f"give {arg}'s class __hash__ and __eq__ over the fields the trace reads (a frozen dataclass), "
                  f"or pass '{attribute}' as an argument",
                  "a static argument is part of jit's cache key through its hash: an object with the default hash "
                  "is the same key after its attributes change, so later calls reuse the program compiled with the "
                  "old values. A value-based hash retraces when they change; an array argument is read on every "
                  "call.")


STATIC_FIELD_IGNORED = Advice(
    "make the changing field a pytree leaf instead of static data (drop eqx.field(static=True) / "
    "struct.field(pytree_node=False), or return it among the children in tree_flatten)",
    "a pytree node's static data (aux data) is part of its tree structure, which jit keys its cache on: each new "
    "value traces and compiles again, here into the same program, since the program does not depend on it. A "
    "leaf is traced: one compile serves every value.")
STATIC_FUNCTION_FIELD = Advice(
    "keep one function object in the static field: define the function once (at module level, or outside the loop "
    "or the calling function) and pass that same object every time, instead of a lambda, closure or partial built "
    "per call",
    "a function cannot be a pytree leaf (jit traces arrays, not functions), so it stays static data, part of the tree "
    "structure jit keys its cache on; and a function compares by identity, so a new lambda, closure or partial with "
    "the same code is a new tree structure, traced and compiled again, here into the same program.")


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


# --- watch's taxonomy findings (docs/pitfalls.md): errors JAX raised into the program, recompile patterns,
# host round trips, PRNG keys, dtypes and donation. One entry per pitfall; watch phrases its fix from here.
LEAKED_TRACER = Advice(
    "return the value from the jitted function instead of storing it in a global, a closure or an object",
    "a tracer is valid only inside the trace that made it; one kept in outer state (a global, self.x, a list) "
    "raises UnexpectedTracerError wherever it is used later. jax.checking_leaks() names the line that leaked it.")
def unhashable_static(type_name: str, family: str = "jax") -> Advice:
    """The fix for a static argument jit could not hash, phrased for the wrapper ``family`` whose call
    raised (``jax``, or a library such as ``equinox`` whose jit makes every non-array leaf static)."""
    by_type = any(t.static_by_type for t in registry().values() if t.family == family and t.compiles)
    if by_type:
        return Advice(
            f"make {type_name} hashable by value (a frozen dataclass or {family} Module, tuples instead of lists), "
            "or pass the values that change as arrays",
            f"under {family}'s jit every non-array leaf of the arguments is static: part of the cache key, so it "
            "must be hashable; an unhashable one raises at every call.")
    return Advice(
        f"make {type_name} hashable by value (@dataclass(frozen=True), a NamedTuple, tuples instead of lists), "
        "or drop it from static_argnums/static_argnames and pass its arrays as a pytree argument",
        "static arguments are part of jit's cache key and must be hashable; one that is not raises at every "
        "call (a class hashed by identity instead compiles again for every new instance).")


INVALID_ARGUMENT = Advice(
    "pass only arrays (and pytrees of arrays) as traced arguments; make the other values static or close "
    "over them",
    "jit abstracts each traced argument to a shape and dtype; a string, a function or an arbitrary object has "
    "none. A hashable configuration value belongs in static_argnums/static_argnames (or a pytree's aux data).")
DONATED_REUSE = Advice(
    "rebind the donated argument to the result (x = f(x)) and never use the old array afterwards",
    "donate_argnums hands the argument's buffer to the output: JAX deletes the array after the call, and any "
    "later use raises. Donate only what you overwrite, or copy (jnp.copy) what you still need.")
DONATED_TWICE = Advice(
    "pass distinct arrays to the donated arguments (jnp.copy one of them) or donate only one of them",
    "a donated buffer is handed to the output: one buffer behind two donated arguments (the same array, or "
    "two pytree leaves bound to one array) cannot be handed over twice, so JAX refuses the call.")
UNUSABLE_DONATION = Advice(
    "donate only arguments that an output of the same shape and dtype can reuse, or drop donate_argnums",
    "a donated buffer that matches no output cannot be reused: nothing is saved, and the array is still "
    "deleted after the call.")
PAD_SHAPES = Advice(
    "pad (or bucket) the varying dimension to a few fixed sizes and mask the padding",
    "jit compiles one program per input shape: every new batch size, sequence length or array length traces "
    "and compiles again, and each executable stays cached.")
STABLE_STRUCTURE = Advice(
    "keep the argument's structure the same on every call: fill an optional field with an array (zeros) from "
    "the start instead of None, and keep dict keys and list lengths fixed",
    "jit keys its cache on each argument's tree structure (None is an empty subtree, not a leaf): a structure "
    "that changes between calls traces and compiles a new program, and a value that flips keeps both cached.")
RAGGED_BATCH = Advice(
    "pad the last, smaller batch to the full batch size and mask the padding, or drop the remainder "
    "(drop_last)",
    "jit compiles one program per input shape: a loop over data whose length is not a multiple of the batch "
    "size ends with a smaller batch, a second program compiled for one call (again in every run, and for each "
    "dataset size).")
CONFIG_ONCE = Advice(
    "set the configuration (default device, x64, mesh, matmul precision) once, outside the loop",
    "JAX adds its trace context (jax.default_device, jax_enable_x64 and the other context managers and flags "
    "in it) to jit's cache key: a function called under another context compiles again, even with the same "
    "arguments.")
CACHE_GROWTH = Advice(
    "remove the cause of the recompiles (new shapes, static values or function objects), or call "
    "jax.clear_caches() between phases of a long-running program",
    "each compile keeps its executable in jit's cache for as long as the function lives: a function compiled "
    "again and again grows host (and device) memory with the number of programs.")
PERSISTENT_THRESHOLD = Advice(
    "lower jax_persistent_cache_min_compile_time_secs (e.g. to 0) so that these compiles are written",
    "JAX writes a program to the persistent cache only when its compile took at least that long: programs below "
    "it are compiled again by every run.")
PERSISTENT_TOO_LATE = Advice(
    "set jax_compilation_cache_dir before the first compile of the process (at start-up, or with the "
    "JAX_COMPILATION_CACHE_DIR environment variable)",
    "JAX sets its persistent cache up once, at the process's first compile; a directory configured later is "
    "not used.")
HOST_SYNC = Advice(
    "keep per-step values on the device (accumulate them in the jitted step) and read them every N steps "
    "or at the end",
    "each host read (float(), .item(), bool(), np.asarray, print) waits for the computation that makes the "
    "value and copies it: one read per iteration makes the host and the device take turns instead of "
    "overlapping (JAX dispatches asynchronously).")
CALLBACK_IN_LOOP = Advice(
    "move the callback out of the loop body: collect the values in the loop's carry or outputs and make one "
    "host call after the loop",
    "a host callback (jax.pure_callback, io_callback, jax.debug.callback/print) inside lax.scan/fori_loop/"
    "while_loop stops the compiled loop at every iteration for a round trip to Python.")
HOST_CALLBACK_PER_CALL = Advice(
    "compute the host function's result on the device with jax.numpy (or lax) operations, or call it outside "
    "the jitted step, on a batch of steps' values or every N steps",
    "a jax.pure_callback leaves the compiled program for Python at every call: JAX copies the operands to "
    "the host, runs the function and copies the results back, which costs far more than the dispatch of a "
    "small step.")
ASYNC_TIMING = Advice(
    "block on the result before reading the clock (y.block_until_ready(), or jax.block_until_ready(tree)), "
    "and leave the first, compiling call out of the timing",
    "a jitted call returns as soon as its work is queued (asynchronous dispatch): a clock read right after it "
    "measures microseconds of dispatch while the computation is still running.")
JIT_THE_STEP = Advice(
    "jit the function that makes these calls (one jax.jit over the whole step)",
    "each jitted call or eager JAX operation pays its dispatch (microseconds of Python and C++) whatever its "
    "size; one compiled step pays it once, and XLA can fuse the operations.")
SPLIT_KEYS = Advice(
    "split the key (jax.random.split) and use each subkey once",
    "JAX's random functions are deterministic in their key: the same key gives the same numbers, so two draws "
    "from one key are identical or correlated.")
KEY_AS_ARGUMENT = Advice(
    "pass the key as an argument (and split it for each call)",
    "a key read from a global, a closure or a static attribute becomes a constant of the traced program: every "
    "call (every loop iteration) draws the same numbers.")
KEY_PER_ITERATION = Advice(
    "split the key in each iteration (carry it and split it, or fold_in the loop index)",
    "a key used unchanged in every iteration of a lax loop draws the same numbers at every step.")
ENABLE_X64 = Advice(
    "set jax.config.update('jax_enable_x64', True) at start-up (or JAX_ENABLE_X64=1) if 64-bit is needed; "
    "otherwise request float32/int32",
    "without jax_enable_x64 JAX computes in 32 bits: a requested float64/int64 silently becomes float32/int32.")
PERSISTENT_KEY = Advice(
    "make the differing key component stable between runs",
    "JAX's persistent-cache key hashes the program, its compile options and the versions; a component that "
    "changes from compile to compile (a nondeterministic lowering, a callback, a flag) gives a new key each "
    "time, so no run finds the entry an earlier run wrote.")
FUNCTIONAL_UPDATE = Advice(
    "use x = x.at[idx].set(value) (or .add, .multiply, ...) and keep the result",
    "JAX arrays are immutable values: x[idx] = v raises, and .at[idx].set(v) returns a new array (under jit "
    "XLA updates in place when it can).")
DEVICE_MEMORY = Advice(
    "shrink what is live at once: smaller batches, jax.checkpoint (remat) on large intermediates, donate "
    "buffers you overwrite, and free arrays you no longer need",
    "the device (or host, on CPU) had no room for the allocation; XLA materialises intermediates and JAX's "
    "allocator preallocates on GPUs (XLA_PYTHON_CLIENT_PREALLOCATE / XLA_PYTHON_CLIENT_MEM_FRACTION).")
DEVICE_PUT_ONCE = Advice(
    "put the array on the device once, before the loop (x = jax.device_put(x) or jnp.asarray(x)), and pass that",
    "a NumPy argument is host memory: every call of a jitted function copies it to the device again, even "
    "when it is the same array each time; a jax.Array already on the device is passed without a copy.")
CONVERT_ONCE = Advice(
    "convert it once, before the loop (x_dev = jnp.asarray(x) or jax.device_put(x)), keep the device array and "
    "use it in every step; for data that really is new each step, prefetch it (device_put the next batch while "
    "this step runs)",
    "jnp.asarray, jnp.array and jax.device_put of a NumPy array copy it host-to-device at every call: JAX keeps no "
    "cache of transfers, so the same host data converted each step is copied each step.")
