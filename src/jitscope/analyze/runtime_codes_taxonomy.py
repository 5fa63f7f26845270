"""The runtime finding codes that complete the pitfall taxonomy (docs/pitfalls.md): JW102-JW107,
JW405-JW409, JW502-JW507, JW601-JW604. Merged into ``runtime_codes.CODES`` in code order; kept in their own
module so each page sits beside its siblings (and ``runtime_codes.py`` stays readable). Codes are stable
and never reused.
"""

from __future__ import annotations


def RuntimeCode(*fields: str) -> tuple[str, ...]:  # noqa: N802 - reads like the record runtime_codes builds from it
    """One code's fields, in ``runtime_codes.RuntimeCode``'s order (code, name, severity, summary, what, why,
    example, fix, evidence); kept as a tuple here so that this module imports nothing from runtime_codes."""
    return fields


_CERTAIN_RAISED = ("**certain**: JAX raised it (its class and message are in ``details``), at the line of the "
                   "program that called the JAX API; seen at JAX's exception boundary whether the program caught "
                   "it or not.")

TAXONOMY_CODES: tuple[tuple[str, ...], ...] = (
    RuntimeCode(
        "JW102", "leaked-tracer", "error",
        "A tracer leaked out of a trace (stored in a global, an attribute or a list) was used after the trace "
        "ended: JAX raised UnexpectedTracerError (even one the program caught).",
        "Reports each ``UnexpectedTracerError`` JAX raised outside a trace into the program's code, at the line "
        "that used the leaked value, naming the function whose trace leaked it (from JAX's message). Inside a "
        "trace the same error is a failed trace (JW101). A store of the tracer is also a trace-time side effect "
        "(JW201, at the line that stored it).",
        "Tracers are placeholders valid only while their function is traced. One kept in outer state outlives "
        "its trace, and every later use fails, often far from the line that leaked it.",
        "```python\nlast = None\n\n@jax.jit\ndef f(x):\n    global last\n    last = x           # the tracer leaks\n"
        "    return x + 1\n\nf(1.0)\nlast + 1               # JW102: UnexpectedTracerError\n```",
        "```python\n@jax.jit\ndef f(x):\n    return x + 1, x    # return what you need\n\ny, last = f(1.0)\n```",
        _CERTAIN_RAISED),
    RuntimeCode(
        "JW103", "invalid-jit-argument", "error",
        "jit could not trace an argument: a string, a function or another non-array value was passed where "
        "jit expects an array (even when the program caught the TypeError).",
        "Reports each ``TypeError`` JAX raised at a jitted call because an argument could not be abstracted to "
        "an array (\"Error interpreting argument to f as an abstract array\"), with the argument's path and "
        "type, at the program's call.",
        "A jitted function's traced arguments must be arrays (or pytrees of arrays): anything else fails at the "
        "call, and a program that catches the error silently takes another path.",
        "```python\n@jax.jit\ndef f(x, mode):\n    return x * 2 if mode == 'double' else x\n\nf(x, 'double')         "
        "# JW103: a str is not an array\n```",
        "```python\n@functools.partial(jax.jit, static_argnames=('mode',))\ndef f(x, mode):\n    ...\n```",
        _CERTAIN_RAISED),
    RuntimeCode(
        "JW104", "donated-array-reuse", "error",
        "An array was used after it was deleted: donated to a jitted call (``donate_argnums``) or deleted; JAX "
        "raised (even when the program caught it).",
        "Reports each error JAX raised because an array it had deleted was used again (\"Array has been "
        "deleted\"; passed to a jitted call, \"Buffer has been deleted or donated\"), and each call that "
        "donated one buffer twice (\"Attempt to donate the same buffer twice\": the same array, or two pytree "
        "leaves bound to one array, in donated arguments), at the program's line that used it; refused at the "
        "very call that compiled the donating jitted function, the finding names that function and its fix "
        "points at its definition (where ``donate_argnums`` is written). A jitted call "
        "whose executable is in jit's C++ cache raises with no Python code of JAX on the way: watch sees that "
        "on Python 3.12+ (sys.monitoring) and, caught, not on Python 3.11.",
        "Donation hands an argument's buffer to the call's outputs: JAX deletes the array after the call. A later "
        "use (a second call with the same array, a metric read from it) raises, and one buffer cannot be handed "
        "over twice in one call.",
        "```python\nstep = jax.jit(update, donate_argnums=0)\nnew = step(params, g)\nloss(params)           "
        "# JW104: params was donated\n```",
        "```python\nparams = step(params, g)   # rebind: the old buffer is gone\n```",
        _CERTAIN_RAISED),
    RuntimeCode(
        "JW105", "inplace-array-update", "error",
        "``x[idx] = v`` on a JAX array (or a traced value): JAX arrays are immutable, and JAX raised a "
        "TypeError (even when the program caught it).",
        "Reports each ``TypeError`` JAX raised from item assignment on an array or tracer, at the program's "
        "line. (A discarded ``x.at[idx].set(v)`` raises nothing and leaves no trace at run time: lint's JS603 "
        "sees it.)",
        "Code written for NumPy mutates arrays in place; JAX arrays are values, and the assignment fails (a "
        "program that catches the error and falls back to NumPy loses jit altogether).",
        "```python\nx = jnp.zeros(3)\nx[0] = 1.0            # JW105\n```",
        "```python\nx = x.at[0].set(1.0)\n```",
        _CERTAIN_RAISED),
    RuntimeCode(
        "JW106", "device-out-of-memory", "error",
        "An allocation on the device (the host, on CPU) failed: JAX raised ``RESOURCE_EXHAUSTED`` (even when "
        "the program caught it and retried smaller).",
        "Reports each out-of-memory error JAX raised into the program, at the program's line, with the size "
        "requested when JAX's message gives it.",
        "Device memory holds the live arrays, the compiled programs' intermediates and (on GPU) JAX's "
        "preallocated pool; a program that runs out often only needs fewer live buffers at once.",
        "```python\nh = forward(params, huge_batch)     # JW106: RESOURCE_EXHAUSTED\n```",
        "```python\nforward = jax.checkpoint(forward)   # remat; or smaller batches, donation\n```",
        _CERTAIN_RAISED),
    RuntimeCode(
        "JW107", "unhashable-static-argument", "error",
        "A jitted function's static argument could not be hashed (a list, a dict, a non-frozen dataclass): JAX "
        "raised \"Non-hashable static arguments are not supported\" at the call (even when the program caught "
        "it).",
        "Reports each such error at the program's line that called the jitted function, with the argument's "
        "type, also under a wrapper that makes arguments static (``equinox.filter_jit``: the fix then names "
        "that wrapper's rules). JAX's C++ dispatch raises it before any of JAX's Python runs: watch sees it on "
        "Python 3.12 and later (``sys.monitoring``), and on Python 3.11 only where it crosses a JAX API (a "
        "jitted function called inside another trace) or ends the program (the crash explanation).",
        "Static arguments are part of jit's cache key, so they must be hashable and comparable by value. A "
        "program that catches the error and falls back to an eager path silently loses jit; older JAX hashed "
        "such objects by identity and compiled again for every new instance (JW403).",
        "```python\n@dataclasses.dataclass\nclass Config:\n    n: int\n\n"
        "@functools.partial(jax.jit, static_argnums=1)\ndef f(x, cfg):\n    return x[:cfg.n]\n\n"
        "f(x, Config(4))         # JW107: Config is not hashable\n```",
        "```python\n@dataclasses.dataclass(frozen=True)   # hashable by value\nclass Config:\n    n: int\n```",
        _CERTAIN_RAISED),
    RuntimeCode(
        "JW405", "shape-recompiles", "warning",
        "One jitted function compiled for three or more input shapes: every new shape traces and compiles "
        "again.",
        "Groups the compiles of each function (one definition) whose argument signatures have the same tree "
        "structure, dtypes and static values, and reports one that compiled for at least 3 distinct shape "
        "vectors, or for 2 whose compiles both came from one call site inside a loop of the program (the loop's "
        "data brought the new shape: a last, smaller batch; advice: pad it or drop the remainder): which "
        "arguments' shapes varied, the shapes seen, the extra compiles and their seconds. Not reported: two "
        "shapes from two call sites (a train and an eval step), a loop over sizes the program wrote down "
        "(``for n in (4, 8)``), and compiles called from test files (a test picks its shapes on purpose, as "
        "``jaxmodel/deliberate.py`` says of trace-time effects). Under pytest, shapes count within one test (its "
        "node id): a library's jitted function that sees one new size per test (each test, each parametrization "
        "picking its own problem size) is not a churn, and padding cannot merge sizes across tests; a churn of "
        "sizes within one test stays.",
        "Shapes are part of jit's cache key: a varying batch size, sequence length or array length compiles a "
        "new program each time, and each executable stays in memory.",
        "```python\nfor batch in batches:          # the last batch is smaller; lengths vary\n"
        "    loss = step(params, batch)  # JW405: compiled for 3 shapes of batch\n```",
        "```python\nbatch = pad_to(batch, 128)     # a few fixed sizes, with a mask\nloss = step(params, batch, "
        "mask)\n```",
        "**certain**: counted compiles of one function whose recorded signatures differ only in shapes."),
    RuntimeCode(
        "JW406", "config-recompile", "warning",
        "A function compiled again with the same arguments because JAX's trace context changed "
        "(``jax.default_device``, ``enable_x64``, a mesh, a flag).",
        "Records JAX's trace context (``config.trace_context()``: the configuration jit adds to its cache key) "
        "for each compile, and reports a compile of a function object whose signature equals an earlier "
        "compile's while the context differs, naming the entries that changed and their values.",
        "Configuration set inside a loop (a ``with jax.default_device(...)``, ``enable_x64`` around a call) "
        "recompiles on every change, although nothing about the arguments changed; only "
        "``jax_explain_cache_misses`` (when on) says that the tracing context differed.",
        "```python\nfor d in range(steps):\n    with jax.default_device(cpu):   # JW406\n        y = f(x)\n```",
        "```python\nwith jax.default_device(cpu):       # once, around the loop\n    for d in range(steps):\n"
        "        y = f(x)\n```",
        "**certain**: the two compiles' recorded signatures are equal and their trace contexts differ in the "
        "named entries (JAX 0.9 and later name them; older JAX: not reported)."),
    RuntimeCode(
        "JW407", "compile-cache-growth", "warning",
        "A function compiled 16 or more times and still compiling at the end of the run: the number of "
        "programs (and their memory) grows with the run's length.",
        "Counts the compiles of each function (one definition) and reports one with at least 16 by one function "
        "object, whose last compile came in the final quarter of the run, whatever the cause (JW403-JW406 name it "
        "where known). Compiles spread over objects rebuilt along the run (a fresh closure or jit per step) are "
        "not: each object's cache dies with it (JW403 reports them). Under pytest the run is the test: 16 compiles "
        "within one test (its node id), the last in the final quarter of that test's compiles; compiles spread "
        "over a suite's tests (one per test) do not grow with any one program's length.",
        "Each compile costs its trace, lowering and compile time and keeps an executable cached: a long-running "
        "program that keeps compiling slows down and grows its memory (host RAM on CPU, device memory for "
        "constants).",
        "```python\nfor i in range(1000):\n    y = f(jnp.zeros(i))     # JW407 (and JW405): a program per length\n```",
        "```python\nfor i in range(1000):\n    y = f(pad(jnp.zeros(i), 1024), i)   # one shape, one program\n```",
        "**certain**: the count and times of the function's recorded compiles."),
    RuntimeCode(
        "JW408", "persistent-cache-miss", "warning",
        "A configured persistent compilation cache that will not spare the next run these compiles: below its "
        "thresholds, a key that changes for the same program, or the cache not used.",
        "With ``jax_compilation_cache_dir`` set, reports (1) compiles JAX did not write because they took less "
        "than ``jax_persistent_cache_min_compile_time_secs`` (or are smaller than the minimum entry; ``info`` "
        "when they add up to less than a second), (2) two compiles of the same program (equal fingerprints) "
        "with different cache keys, naming the key components that changed, (3) a directory set but no compile "
        "using the cache.",
        "The persistent cache is the cure for start-up compile time; it silently does nothing for programs "
        "below its thresholds or whose key is not stable, and every run pays the compiles again.",
        "```python\njax.config.update('jax_compilation_cache_dir', '/tmp/jax-cache')\n"
        "f(x)                  # JW408: 0.4 s compile, under the 1 s minimum: not written\n```",
        "```python\njax.config.update('jax_compilation_cache_dir', '/tmp/jax-cache')\n"
        "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)\n```",
        "**certain**: JAX's own reasons not to write (its persistent-cache log) and its keys per compile."),
    RuntimeCode(
        "JW409", "structure-recompile", "warning",
        "A jitted function compiled again at one call site inside a loop because an argument's pytree structure "
        "changed between calls (None, then an array; a dict that gained a key).",
        "Compares the recorded argument tree structures (treedefs) of consecutive compiles of one function object "
        "called from one line inside a loop, and reports the arguments whose structure changed, with what they held "
        "before and after (``state: None -> f32[16]``), the extra compiles and their seconds. Compiles whose programs "
        "are equal are JW403's (it names the same key difference); two call sites (a train and an eval step), "
        "compiles called from test files, and under pytest compiles of different tests are not paired.",
        "The tree structure is part of jit's cache key, and ``None`` is an empty subtree, not a leaf: an optional "
        "field left ``None`` on the first call and filled later compiles a second program, and a value that flips "
        "between the two keeps both executables and pays a compile for every new structure.",
        "```python\nstate = {'w': w, 'm': None}        # filled by the first step\nfor batch in batches:\n"
        "    state = step(state, batch)         # JW409: state['m']: None -> f32[16]\n```",
        "```python\nstate = {'w': w, 'm': jnp.zeros_like(w)}   # the same structure on every call\n```",
        "**certain**: counted compiles of one function object from one call site whose recorded treedefs differ."),
    RuntimeCode(
        "JW502", "host-sync-in-loop", "warning",
        "A line that read 50 or more new ``jax.Array`` values to the host (``float``, ``.item()``, ``bool``, "
        "``np.asarray``, ``print``) or waited for them (``block_until_ready``): a host sync per loop iteration.",
        "Counts host reads of ``jax.Array`` values per line of the program (reads a library makes on its behalf "
        "are not counted), ``.item()`` and ``block_until_ready()`` calls among them (a wait for the device with no "
        "copy is the same sync), and reports a line with at least 50 reads of a different array than the read "
        "before: one per iteration of a loop. Where a ``for`` statement with an int index (``range``, "
        "``enumerate``) runs the line, counts iterations, not reads: reported only when at least half the "
        "iterations from the first read to the last read (reads every 100 steps, or a batch of 100 reads made "
        "at once every 100 steps, are one round trip per 100 steps, however long the run). The leaves of one "
        "``jax.device_get`` call are one batched transfer (JAX starts every leaf's copy before reading any), "
        "counted once: fetching a loop's results together after it is the fix, not the pitfall. What a sync per "
        "iteration costs is the overlap it forbids: per iteration, at most the lesser of the time the read waited "
        "for the device and the host's own time since the previous sync there, measured for reads that repeat the "
        "previous read's program stack (one loop ran both: a helper's line reached from 55 separate assertion lines "
        "of a test is no loop; one reached from two lines of one loop is a loop per caller). Reported only when "
        "that bound, a time threshold (``details.min_seconds_lost``), is at least 50 ms and 10% of the loop's time there: "
        "a print loop over results computed before it (no read waits) and a tiny step synced on a CPU (nothing to "
        "overlap) are quiet. A sync inside a timed region that encloses it alone (``t0 = clock()`` after the previous sync, "
        "``clock() - t0`` before the next), in at least half the iterations, is a benchmark's measurement (it needs "
        "the sync; JW507 reports the opposite): not reported; an elapsed-time print (``clock() - start``, ``start`` "
        "read before the loop) times no step and leaves the finding alone. Gives how many reads had to wait for the device, the seconds spent in them and "
        "the seconds overlap could have saved. Under pytest, a line of a test module (per "
        "pytest's node id) whose reads took under 1 s is the test's speed (a loop asserting each step): not "
        "reported, like every per-step cost at a test's line (``advice_scope.TEST_SPEED_CODES``).",
        "JAX dispatches asynchronously: the host queues the next step while the device runs. A host read waits "
        "for the value, so a read every iteration makes host and device take turns (on an accelerator the "
        "device idles while Python runs).",
        "```python\nfor step in range(n):\n    state, loss = train_step(state, batch)\n    if float(loss) < tol:   # "
        "JW502: a round trip per step\n        break\n```",
        "```python\nfor step in range(n):\n    state, loss = train_step(state, batch)\n    if step % 100 == 0 and "
        "float(loss) < tol:\n        break\n```",
        "**certain**: counted reads (``jax.Array._value``, ``.item()``, ``.block_until_ready()``) at the line; "
        "the seconds are what they took here; the time lost is an upper bound from those waits and the host's time "
        "between them (what an accelerator would lose is not guessed). Not seen on CPU: ``np.asarray(x)`` (NumPy reads through the "
        "buffer protocol, in C++)."),
    RuntimeCode(
        "JW503", "callback-in-loop", "warning",
        "A host callback (``jax.pure_callback``, ``io_callback``, ``jax.debug.callback``/``print``) inside a "
        "``lax.scan``/``fori_loop``/``while_loop`` body: one host round trip per iteration.",
        "Reads each compiled program's jaxpr (already in hand at its trace) for callback equations inside a "
        "loop body, and reports the callback's line, the loop's line and, for a ``scan``, the iterations per "
        "call.",
        "The compiled loop stops at every iteration, copies the operands to the host, runs Python and copies "
        "the result back: on a CPU about 100 us per iteration against a few for a small body (issue #24 "
        "measured ~600x on one program).",
        "```python\ndef body(c, x):\n    y = jax.pure_callback(np_fn, spec, x)   # JW503\n    return c + y, y\n\n"
        "jax.jit(lambda xs: lax.scan(body, 0.0, xs))(xs)\n```",
        "```python\nys = jax.pure_callback(np_fn_batched, spec, xs, vmap_method='expand_dims')  # once\n```",
        "**certain**: the callback equation is in the loop body of the compiled program."),
    RuntimeCode(
        "JW504", "dispatch-overhead", "warning",
        "A loop whose time goes to dispatching many small JAX calls one at a time (tiny jitted functions, eager "
        "``jnp`` operations): one ``jax.jit`` over the loop body would dispatch once per iteration.",
        "Samples the watched thread's stack about a hundred times a second (a daemon thread; nothing runs on "
        "the program's calls) and files each sample at the program's line. Reports a function of the program "
        "when at least 30% of the run's samples (and 20) were at its lines calling JAX outside any compile, "
        "those lines call at least two different JAX callables, and every jitted function of the program among "
        "them compiled a small program (at most 64 equations on arrays of at most 100,000 elements; otherwise "
        "the time is the work, not its dispatch), wherever it compiled: a callee the line names is matched to "
        "the program's jitted functions by name, so a large program compiled by a warm-up call before the loop "
        "keeps the loop quiet. Names the lines, the callables and the share of the run.",
        "Every jitted call and every eager JAX operation pays its dispatch (microseconds of Python and C++) "
        "whatever its size; a step made of many small calls is bound by dispatch, not by compute. This is the "
        "jit-scope question of jitscope's seeds, asked of the running program: jit the step, not its pieces "
        "(``jitscope compare`` measures both).",
        "```python\nfor i in range(n):\n    x = scale(x)       # three tiny jitted functions\n    x = shift(x)\n"
        "    x = clip(x)        # JW504: 70% of the run dispatching them\n```",
        "```python\n@jax.jit\ndef step(x):\n    return clip(shift(scale(x)))   # one dispatch per iteration\n```",
        "**likely**: the share is measured from stack samples; that the time is dispatch (not work) is inferred "
        "from the sizes of the programs called."),
    RuntimeCode(
        "JW505", "host-array-argument", "warning",
        "A jitted function called from a loop with the same NumPy array each time: JAX copies it host-to-device "
        "on every call.",
        "At the call that compiled a user function, finds the loop that repeats it (around the call, or around "
        "a call of the function that makes it, a few program frames up) and looks for NumPy array arguments "
        "bound, in the frame that runs the loop, to names that the loop never assigns (a module global, a local "
        "made before the loop), to an attribute of such a name's object that nothing between assigns "
        "(``data.X``; ``self.X`` in a method the loop calls) and that still holds the same array at the end of "
        "the run, or inside a container argument so held (``batch['x']``) that the loop stores no item into; "
        "and whose contents (a digest) are the same at the end of the run where still alive: the same host data "
        "on every iteration. Reports the arrays, their bytes per call, the loop's line, and the share of the "
        "run's stack samples in the call's line (``info`` under 64 KiB). A new batch per step, batches picked "
        "per step and a buffer refilled in place are new data: not reported.",
        "A NumPy argument lives in host memory; each call of a jitted function copies it to the device again "
        "(JAX caches programs, not transfers). A constant input re-sent every step costs a host-to-device copy "
        "per step (``JAX_TRANSFER_GUARD=log`` prints each one).",
        "```python\nX = np.random.rand(1000, 100).astype(np.float32)\nfor i in range(steps):\n"
        "    w = step(w, X)          # JW505: X copied every call\n```",
        "```python\nX = jax.device_put(X)       # once\nfor i in range(steps):\n    w = step(w, X)\n```",
        "**likely**: the arrays and the loop are observed at the compiling call; that later calls pass the same "
        "object is inferred from the loop never assigning the name, attribute or item (the copies themselves "
        "run in C++, unseen and not counted)."),
    RuntimeCode(
        "JW506", "host-callback-per-call", "warning",
        "A jitted function called in a loop runs a ``jax.pure_callback`` at every call: a round trip to Python "
        "per call, which costs far more than the call's dispatch.",
        "Counts the runs of each ``jax.pure_callback`` host function per line of the program that called the "
        "jitted function (JAX's callback implementation, on CPU on the calling thread) and reports a line with "
        "at least 20 runs taking at least 5 ms in all: the runs, the median seconds per run and the total. A "
        "callback inside a compiled loop is JW503's instead.",
        "JAX 0.10 and later dispatch a program with a ``pure_callback`` from the C++ fast path (JW501 does not "
        "apply), but every execution leaves the compiled program: JAX copies the operands to the host CPU "
        "device, calls the function and copies the results back (about 250 us per call of a small step on CPU, "
        "against about 7 us without the callback; on an accelerator the device idles meanwhile).",
        "```python\n@jax.jit\ndef step(w, x):\n    h = jax.pure_callback(np_tanh, spec, x @ w)\n"
        "    return w - 0.01 * h.mean()\n\nfor i in range(1000):\n    w = step(w, x)        # JW506\n```",
        "```python\n@jax.jit\ndef step(w, x):\n    h = jnp.tanh(x @ w)    # on the device\n"
        "    return w - 0.01 * h.mean()\n```",
        "**certain**: the runs of the host function and their seconds are counted at JAX's own callback "
        "implementation; the device time the round trip stalls is not measured."),
    RuntimeCode(
        "JW507", "async-timing", "warning",
        "A timed region around JAX work ended before the work did: the clock was read while a result computed "
        "in the region was still running, so the time measured is the asynchronous dispatch.",
        "Wraps ``time.perf_counter``, ``time.time``, ``time.monotonic`` and their ``_ns`` forms while watching "
        "(the value is the clock's own, read first; ``from time import perf_counter`` gets the wrapper too). A "
        "clock read in the program that closes a region (its value is the left operand of a subtraction, at "
        "once or through the name it is stored in, ``- t0`` or ``- self.t0``, read from the bytecode) looks at "
        "the ``jax.Array`` values made inside the region: those its frame holds (and the items of tuples, lists "
        "and dicts held there) that are new since the frame's previous clock read, or, where the frame's locals "
        "cannot be read without keeping them alive (a function before Python 3.13) or the region began in "
        "another frame (a ``toc(t0)`` helper, a timer's ``__exit__``), the arrays alive in the process "
        "(``jax.live_arrays()``) that were not at the thread's previous clock read. One that is not ready "
        "(``is_ready()`` False) makes the read late. Reports each line with a late read (for a helper, the "
        "program's line that called it), with how many of its regions were.",
        "JAX dispatches asynchronously: a jitted call returns once its work is queued, and a clock read after it "
        "measures microseconds while the computation runs on. Benchmarks and per-step timings then report "
        "impossibly fast numbers, and the cost shows up later at whatever line waits for the value.",
        "```python\nt0 = time.perf_counter()\ny = f(x)\nt1 = time.perf_counter()      # JW507: y still running\n"
        "print(t1 - t0)\n```",
        "```python\nt0 = time.perf_counter()\ny = f(x).block_until_ready()\nt1 = time.perf_counter()\n```",
        "**likely**: the late result and the closing read are observed; that the two clock values time the work "
        "(rather than stamp a log line) is inferred from the subtraction in the code."),
    RuntimeCode(
        "JW508", "host-data-converted-per-step", "warning",
        "A line of the program converts the same NumPy data to a device array (``jnp.asarray``, ``jnp.array``, "
        "``jax.device_put``) over and over: a host-to-device copy per step of data that could stay on the device.",
        "Wraps the public ``jax.numpy.asarray``, ``jax.numpy.array`` and ``jax.device_put`` while watching (the "
        "original runs with the same arguments; calls inside a trace, and NumPy arrays under 1 KiB, are not "
        "looked at). Per line of the program: the conversions, their bytes and seconds, and whether each of the "
        "line's first 12 calls converted the same contents as the call before (a CRC-32 of the data, of a "
        "sample of 262,144 elements for larger arrays). Reports a line whose conversions (at least 20 each) all "
        "converted the same data and, from each one's third call on (the first may compile JAX's conversion, the "
        "loop's first iteration compiles the step), took at least 10% of the time they span: the copy is "
        "material against this run's step. New contents each call (a new batch, a buffer refilled in place) "
        "are input the step needs: not reported.",
        "JAX keeps no cache of transfers: each conversion of a NumPy array copies it host-to-device (on an "
        "accelerator, through PCIe), whether or not the data changed. A constant table or a whole dataset "
        "converted inside the training loop pays that copy every step.",
        "```python\nX = np.random.rand(4096, 256).astype(np.float32)\nfor i in range(steps):\n"
        "    w = step(w, jnp.asarray(X))    # JW508: X copied every step\n```",
        "```python\nX_dev = jnp.asarray(X)             # once\nfor i in range(steps):\n    w = step(w, X_dev)\n```",
        "**likely**: the conversions are timed and the first 12 calls' contents compared; that later calls "
        "converted the same data too is inferred."),
    RuntimeCode(
        "JW509", "jit-disabled", "warning",
        "``jax_disable_jit`` was on when the run ended: every ``jax.jit`` ran its function op by op, eagerly.",
        "Reads JAX's own flag ``jax.config.jax_disable_jit`` when the watch starts and when it ends, and reports "
        "it on at the end (a ``jax.config.update('jax_disable_jit', True)`` or ``JAX_DISABLE_JIT=1`` left on), at "
        "the line of the program's main file that names the option when there is one. A ``with "
        "jax.disable_jit():`` block closed before the end (a scoped debugging choice) is not reported.",
        "With the flag on, calling a jitted function runs its Python body with every ``jax.numpy`` operation "
        "dispatched (and compiled the first time) on its own: no program is traced or fused, nothing is cached "
        "as one executable, and a step costs many times its compiled time. Watch then sees no compile of the "
        "program's functions at all.",
        "```python\njax.config.update('jax_disable_jit', True)   # JW509: left on while debugging\n\n@jax.jit\n"
        "def step(w, x):\n    return w - 0.01 * jnp.tanh(w @ x)\n```",
        "```python\nwith jax.disable_jit():   # only around the code being debugged\n    step(w, x)\n```",
        "**certain**: JAX's flag read when the run ended."),
    RuntimeCode(
        "JW601", "prng-key-reuse", "warning",
        "One PRNG key consumed twice: two samples draw the same random bits; a sample and a split of one key are "
        "not independent.",
        "Watches the program's own ``jax.random`` calls and applies JAX's key-reuse rules (sampling and "
        "``split`` consume a key, ``fold_in`` and ``key_data`` do not): a key object consumed a second time, "
        "eagerly or within one trace, is reported with both lines. Under pytest, only within one test: a key "
        "consumed in one test and again in another (a module- or session-scoped fixture's key) is a reuse no "
        "test can observe, since each test's draws are its own experiment, and fixing it changes no test. The site "
        "is the user's line: where the test passed one key at two of its own lines (its module per pytest's node "
        "id, or a conftest.py) to code that drew from it, the finding is at the test's two lines and names the "
        "draw inside (``details.draws``); a helper that reuses a key within one call stays at its own lines. A "
        "key that is a default argument value of a function between the draw and the test "
        "(``def make_inputs(n, key=jax.random.key(0))``), drawn from again through another line of the test, is "
        "the test's choice (it called the helper without a key, building the same inputs twice): not reported.",
        "JAX's random numbers are a function of the key: reusing a key gives identical or correlated numbers "
        "(the same dropout mask, the same noise), silently. ``jax_debug_key_reuse`` would raise "
        "``KeyReuseError``; watch leaves that flag alone (it changes what JAX does).",
        "```python\nkey = jax.random.key(0)\na = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,))   "
        "# JW601: b == a\n```",
        "```python\nka, kb = jax.random.split(key)\na = jax.random.normal(ka, (3,))\nb = jax.random.normal(kb, "
        "(3,))\n```",
        "**certain** that the same key object was consumed twice by the program's calls; an identical draw can "
        "be intended (a test comparing two runs)."),
    RuntimeCode(
        "JW602", "baked-prng-key", "warning",
        "A jitted function (or a ``lax`` loop body) draws from a key read from a global, a closure or a static "
        "value: the key is a constant of the program and every call draws the same numbers.",
        "Reports each ``jax.random`` call of the program that consumed a concrete key (not a tracer) while JAX "
        "staged a trace, and each draw of a traced program (dataflow of its jaxpr) from a key no argument "
        "reaches: captured, or seeded from a value computed at trace time. A key seeded inside the function from "
        "a seed the program chose is deterministic by design and not reported: a seed written as a number on its "
        "line, equal to a static argument, or named on its line by a parameter of the function that seeds it (its "
        "default, ``self.seed``) or by a variable of an enclosing function (a factory's ``seed``); a seed computed "
        "on the line (``int(time.time())``) or read from a module global is reported. A key per step is not one "
        "key: a key derived (``fold_in``, ``key(i)``) from a value that changes per iteration of a "
        "``lax.scan``/``fori_loop`` (the index, a scanned element, a carry the body updates), or seeded or folded "
        "at one line from several values in one program (a Python loop the trace unrolled), draws new numbers at "
        "each step: not reported. Inside a ``lax.scan`` body, a key the function was passed and the body uses "
        "unchanged (a constant of the loop, or a carry returned as it came, neither split nor folded with the "
        "index) is reported: every iteration draws the same numbers (``details.origin`` ``loop-invariant``). "
        "Filed at the program's own line: a draw inside an installed library (flax's or equinox's initialisers) "
        "is reported at the innermost frame outside installed packages, the line that passed the library the key; "
        "a seed literal written on the library's own line or on the program's line that called it (``nnx.Rngs(0)``, "
        "where flax's own line seeds ``jax.random.key(key)``) is a fixed seed; a seed read there from a module "
        "global stays a finding.",
        "jit reads the key once, at trace time, and bakes it into the program: every call returns the same "
        "'random' numbers, and no error says so. A key carried through a loop and never split gives every step "
        "the same noise.",
        "```python\nKEY = jax.random.key(0)\n\n@jax.jit\ndef noisy(x):\n    return x + jax.random.normal(KEY, x.shape)"
        "   # JW602\n```",
        "```python\n@jax.jit\ndef noisy(x, key):\n    return x + jax.random.normal(key, x.shape)\n\nkey, sub = "
        "jax.random.split(key)\nnoisy(x, sub)\n```",
        "**certain**: a concrete key reached a consuming ``jax.random`` call during a trace, or the traced "
        "program's dataflow shows the draw's key constant across calls (or across a scan's iterations)."),
    RuntimeCode(
        "JW603", "x64-truncation", "warning",
        "A 64-bit dtype was requested (``float64``, ``int64``) while ``jax_enable_x64`` is off: JAX silently "
        "computes in 32 bits.",
        "Reports JAX's own warning \"Explicitly requested dtype float64 ... will be truncated to dtype "
        "float32\" at the program's line that asked (``jnp.ones(..., dtype=jnp.float64)``, "
        "``jax.random.uniform(..., dtype=...)``, ``.astype``), with the API named.",
        "The program asked for 64-bit precision and gets 32: results lose precision, and code that worked with "
        "NumPy silently changes its numbers.",
        "```python\nx = jnp.zeros(3, dtype=jnp.float64)   # JW603: float32\n```",
        "```python\njax.config.update('jax_enable_x64', True)   # at start-up, if 64-bit is needed\n```",
        "**certain**: JAX issued the warning (a warning filtered out by the program is not seen)."),
    RuntimeCode(
        "JW604", "unusable-donation", "warning",
        "A jitted function donates arguments no output can reuse: the donation saves no memory, and the "
        "arrays are deleted anyway.",
        "Reports JAX's warning \"Some donated buffers were not usable\" with the buffers, for the donating "
        "function, at the call that compiled it.",
        "Donation pays only when an output has the donated buffer's shape and dtype; otherwise it only deletes "
        "the caller's array, and the memory saving the program counts on does not happen.",
        "```python\nf = jax.jit(lambda x: x.sum(), donate_argnums=0)   # JW604: no f32[3] output\n```",
        "```python\nf = jax.jit(lambda x: x.sum())   # donate only what an output replaces\n```",
        "**certain**: JAX issued the warning while lowering the function."),
)
