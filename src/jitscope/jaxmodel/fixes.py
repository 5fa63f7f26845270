"""The catalogue of fixes: one sentence per pitfall, phrased for the wrapper the user wrote.

lint (``JSxxx``), watch (``JWxxx``) and inspect all phrase their fixes from here, so the same
code gets the same advice from every command (issue #24 item 5). A fix names only options the
user's wrapper has (``known.wrapper_options``) and only APIs that do not themselves cost
what the fix removes: ``jax.debug.print`` is not offered for a trace-time ``print`` in a hot
step, because a host callback takes the call off JAX's C++ fast path (JW501).
"""

from __future__ import annotations

from dataclasses import dataclass

from .known import lookup


@dataclass(frozen=True)
class Advice:
    """One fix: ``title`` (what to do), ``why`` (the mechanism)."""

    title: str
    why: str


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
    return f"pass {arg} as an argument of the traced function instead of closing over it"


# --- watch's taxonomy findings (docs/pitfalls.md): errors JAX raised into the program, recompile patterns,
# host round trips, PRNG keys, dtypes and donation. One entry per pitfall; watch phrases its fix from here.
LEAKED_TRACER = Advice(
    "return the value from the jitted function instead of storing it in a global, a closure or an object",
    "a tracer is valid only inside the trace that made it; one kept in outer state (a global, self.x, a list) "
    "raises UnexpectedTracerError wherever it is used later. jax.checking_leaks() names the line that leaked it.")
INVALID_ARGUMENT = Advice(
    "pass only arrays (and pytrees of arrays) as traced arguments; make the other values static or close "
    "over them",
    "jit abstracts each traced argument to a shape and dtype; a string, a function or an arbitrary object has "
    "none. A hashable configuration value belongs in static_argnums/static_argnames (or a pytree's aux data).")
DONATED_REUSE = Advice(
    "rebind the donated argument to the result (x = f(x)) and never use the old array afterwards",
    "donate_argnums hands the argument's buffer to the output: JAX deletes the array after the call, and any "
    "later use raises. Donate only what you overwrite, or copy (jnp.copy) what you still need.")
UNUSABLE_DONATION = Advice(
    "donate only arguments that an output of the same shape and dtype can reuse, or drop donate_argnums",
    "a donated buffer that matches no output cannot be reused: nothing is saved, and the array is still "
    "deleted after the call.")
PAD_SHAPES = Advice(
    "pad (or bucket) the varying dimension to a few fixed sizes and mask the padding",
    "jit compiles one program per input shape: every new batch size, sequence length or array length traces "
    "and compiles again, and each executable stays cached.")
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
