"""The catalog of watch's runtime finding codes (JWxxx): what each means, why, an example, the fix.

The lint rules (JSxxx) are found by reading source; these are found by watching a program run
under jit. Codes are stable and never reused. ``jitscope rules`` lists both catalogs,
``jitscope rules JW201`` prints one page, and docs/runtime-findings.md is generated from here
(``jitscope rules --runtime --markdown``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuntimeCode:
    """One runtime finding code and its documentation page."""

    code: str
    name: str
    severity: str  # the usual severity; a finding may say less when less is certain
    summary: str
    what: str
    why: str
    example: str
    fix: str
    # What the finding rests on (stated in each finding's ``evidence``) and how sure it is: "certain"
    # (observed), "likely" (inferred from measurements); when the evidence is weaker, the finding says less.
    evidence: str = ""


SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Evidence and confidence")

GROUPS = {"JW1": "Errors JAX raised (failed traces, errors at the call)", "JW2": "Trace-time side effects",
          "JW3": "Captured constants", "JW4": "Program size, compile time and recompiles",
          "JW5": "Dispatch and host round trips", "JW6": "PRNG keys, dtypes and donation"}

CODES: dict[str, RuntimeCode] = {c.code: c for c in (
    RuntimeCode(
        "JW101", "failed-trace", "error",
        "A jitted function's trace raised a JAX tracer error (even one the program caught).",
        "Reports every trace of a jitted function that raised a tracer error "
        "(``TracerBoolConversionError``, ``ConcretizationTypeError``, ``TracerIntegerConversionError``, "
        "a boolean-mask index, ...), at the user's line, with the explanation and fix ``jitscope inspect`` "
        "gives. It is reported even when the program catches the exception and carries on. A function with no "
        "line of the program in it, jitted directly (``jax.jit(jax.nn.one_hot)`` with a traced size), is "
        "reported at the program's call, from the error JAX raised there (``trace_kind`` ``library``).",
        "A program that catches the error (a ``try``/``except`` fallback to an unjitted path, a library "
        "that retries) silently runs the slow path on every call, and pays a failed trace each time.",
        "```python\n@jax.jit\ndef f(x):\n    if x > 0:          # JW101: Python branch on a traced value\n"
        "        return x\n    return -x\n\ntry:\n    f(1.0)\nexcept Exception:\n    pass\n```",
        "```python\n@jax.jit\ndef f(x):\n    return jnp.where(x > 0, x, -x)\n```",
        "**certain**: JAX raised the error inside the trace (its class and message are in ``details``); the "
        "line is the deepest frame of the program's own code in the exception's traceback (an installed "
        "library's frame, NumPy's ``append`` receiving the tracer, is where the error surfaced: the program's "
        "call into it is the line to change)."),
    RuntimeCode(
        "JW201", "trace-side-effect", "warning",
        "Python side effects that ran while JAX traced: print, logging, stdout/stderr writes, global or "
        "nonlocal assignment, mutation of an outer container.",
        "Watches each trace of a jitted function and reports the Python side effects that ran during it: "
        "``print``, ``logging`` calls, writes to ``sys.stdout``/``sys.stderr``, assignment to a "
        "``global`` or ``nonlocal`` name, ``append``/``update``/... on a list, dict or set that "
        "outlives the call (a module global or a closure), and an attribute set on an object the call "
        "received as itself and that outlives the trace: the bound ``self`` of a jitted method, or a static "
        "argument (``self.param = ...`` in a method jitted with ``static_argnums=0``). Objects the trace "
        "builds (a module clone, an nnx graph merged from the arguments) are not watched. Not reported where "
        "the effect is the point (``jaxmodel/deliberate.py``): in test files, where a name says it is about "
        "tracing, and a ``print`` of string literals only that announces the trace (``print('recompiling')``).",
        "The Python body of a jitted function runs only when JAX traces it. The side effect happens once "
        "per trace, never on the calls that reuse the compiled program: the log line appears once, the "
        "counter stops counting, the list holds tracers instead of values.",
        "```python\nhistory = []\n\n@jax.jit\ndef step(x):\n    print('step', x)        # JW201: prints a "
        "tracer, once\n    history.append(x)       # JW201: stores a tracer, once\n    return x * 2\n```",
        "```python\n@jax.jit\ndef step(x):\n    return x * 2\n\ny = step(x)\nprint('step', y)          "
        "# outside jit: the value, on every call\nhistory.append(y)\n```\n\n``jax.debug.print`` inside the "
        "step also prints on every call, but it is a host callback: every call of the step then takes JAX's "
        "slow Python dispatch path (JW501). Use it for debugging, not in a hot step.",
        "**certain**: the effect ran during this trace (jitscope's stand-ins for ``print``, the streams, "
        "``logging`` and outer containers saw it, with the line that ran it; for an attribute, the value the "
        "object's ``__dict__`` holds under a name the traced code stores (``STORE_ATTR``) is another object "
        "after the trace than before it); the count is per trace. A trace "
        "that compiled nothing (``eval_shape``) is reported too: the effect ran there as well."),
    RuntimeCode(
        "JW301", "captured-constant", "warning",
        "An array from a global or closure was baked into the compiled program as a constant.",
        "Reports arrays the traced function read from a module global or a closure cell and that JAX "
        "embedded in the program as constants, with their shape and size. Only for traces that were "
        "compiled: ``jax.eval_shape``, ``jax.make_jaxpr`` and ``.lower()`` alone compile nothing, so nothing "
        "is baked in. Only where the program's captured array constants total at least 64 KiB: below that "
        "the cost is not measurable (on a CPU, XLA's compile time with the constant was within noise, 2 ms, of "
        "the same program taking it as an argument up to 64 KiB; +5 to +7 ms at 1 MiB, +135 ms at 16 MiB: "
        "benchmarks/constant_cost.py), and each program's copy is a few KiB of memory. A small constant that goes stale is still JW302. Severity ``warning`` "
        "from 1 MB, ``info`` below.",
        "A captured array is copied into every compiled program that uses it: large constants inflate "
        "compile time, executable size and device memory, and the program keeps the value it saw at "
        "trace time (JW302 when the global changes later).",
        "```python\nW = jnp.ones((1000, 1000))\n\n@jax.jit\ndef f(x):\n    return x @ W        # JW301: W is "
        "a 4 MB constant inside the program\n```",
        "```python\n@jax.jit\ndef f(x, W):\n    return x @ W\n\nf(x, W)               # W is an argument: "
        "read on every call\n```",
        "**certain**: the array is among the constants of the jaxpr that was compiled, and it is the object "
        "(or, for NumPy arrays JAX copies, the value) the global or closure cell held at trace time."),
    RuntimeCode(
        "JW302", "stale-captured-constant", "warning",
        "A global or closure value baked into a compiled program changed afterwards; the program still "
        "uses the old value.",
        "After a JW301 capture, checks whether the global or closure variable was rebound to a different "
        "value later in the run (checked at each later compile and when the watch ends). Also a static argument "
        "hashed by identity (a class with the default ``__hash__``/``__eq__``, such as ``self`` of a method "
        "jitted with ``static_argnums=0``): jit's cache key is the object, so the attributes the traced code "
        "names (``self.scale``) are baked in like a global; one of them rebound to another value afterwards "
        "is reported at the line that reads it, with the fix of a value-based hash (a frozen dataclass) or an "
        "argument.",
        "jit reads globals once, at trace time. Rebinding the global does not retrace: every call keeps "
        "using the old value until something else (a new shape) forces a retrace. The results are "
        "silently stale.",
        "```python\nW = jnp.ones(3)\n\n@jax.jit\ndef f(x):\n    return x * W\n\nf(x)\nW = jnp.zeros(3)      "
        "# JW302: f still multiplies by ones\nf(x)\n```",
        "```python\n@jax.jit\ndef f(x, W):\n    return x * W\n```",
        "**certain**: the global or cell holds another object than the one captured by a compiled trace "
        "(scalars: an unequal value). Only captures of traces that compiled are checked."),
    RuntimeCode(
        "JW401", "graph-bloat", "warning",
        "A Python loop, comprehension or builtin reduction unrolled into many copies of the same "
        "equations in one compiled program.",
        "Runs the bloat detector ``jitscope inspect`` uses (linear in the program's size) on each traced "
        "program and reports the source line whose repeats dominate it: \"line 14: Python loop x 300 = "
        "1,800 equations, 60% of the program\". Reported when a run has at least 32 repeats and 200 "
        "equations, only for traces that were compiled, and only for lines of the user's code (a loop inside "
        "an installed package is not the user's to roll).",
        "Tracing unrolls Python loops: compile time and memory grow with the trip count, and the "
        "compiler sees hundreds of copies where one loop body would do.",
        "```python\n@jax.jit\ndef f(x):\n    for i in range(1000):     # JW401: 1000 copies of the body\n"
        "        x = jnp.sin(x) + i\n    return x\n```",
        "```python\n@jax.jit\ndef f(x):\n    return lax.fori_loop(0, 1000, lambda i, x: jnp.sin(x) + i, x)\n"
        "```",
        "**certain** for the count: the repeats are equations of the compiled jaxpr with the same primitives "
        "at the same source line; the construct (loop, comprehension) is read from the line's code."),
    RuntimeCode(
        "JW402", "slow-compile", "warning",
        "A backend compile that was slow for its program's size (CPU time, never wall time), with a cause "
        "shown by evidence.",
        "Judges each compile of a user function on the process CPU seconds of its backend compile (XLA "
        "compiles on worker threads; other processes' load inflates wall time, not this), against what "
        "programs of its size take on this machine (``analyze/compile_cost.py``). Reported only when the "
        "program has at least 200 equations, the compile took at least ``--slow-compile`` CPU seconds (default "
        "1), and its cost has a cause shown by evidence: unrolled loops of the user's code hold at least half "
        "the equations (JW401's lines), or the program's constants account for at least half the CPU time "
        "(JW301's names), or the CPU seconds per equation are over three times the top of the band normal "
        "programs take on this machine (the band calibrated by the run's own compiles), in which case the "
        "cause is not named. A program that is merely big gets no finding: nothing in it says what to change.",
        "A slow compile is paid at start-up and again at every recompile; it is often caused by "
        "something cheap to change (a Python loop, a baked-in array).",
        "```python\nBIG = jnp.ones((4096, 4096))\n\n@jax.jit\ndef f(x):\n    for _ in range(500):\n"
        "        x = x @ BIG               # JW402: compile takes seconds (and JW401, JW301)\n    return x\n```",
        "```python\n@jax.jit\ndef f(x, big):\n    return lax.fori_loop(0, 500, lambda i, x: x @ big, x)\n```",
        "**likely**: the CPU seconds and the equations are measured (``evidence`` states both, and the band); "
        "the cause is inferred from the share of the program it holds (the compile is not timed line by line). "
        "Without a cause shown there is no finding, or, when the compile is far outside the band, a finding "
        "that says the cause is unknown."),
    RuntimeCode(
        "JW403", "duplicate-compile", "warning",
        "A function compiled again into a program it already had: jit's cache key changed, the program did not.",
        "Fingerprints each compile's StableHLO, normalised (no locations; the module's and its private "
        "functions' names renumbered; a convert to the same type, which a weak type leaves, "
        "dropped; trivial one-device shardings dropped), and reports a compile of a function whose program "
        "equals one of that function's earlier compiles in the run, with the seconds it took (wasted) and what "
        "differed in jit's cache key: a weak type (a Python scalar, then an array), a committed vs uncommitted "
        "array or another sharding object, the pytree container, an argument passed by keyword in one call and by "
        "position in the other, an argument the program does not read left out in one call, a static value the "
        "program ignores (a pytree node's static data, such as an ``eqx.field(static=True)``, named as that, "
        "with the fix of making it a leaf), a new function object with equal bindings (the same "
        "``jax.jit(lambda)`` or closure built again; with the same function object's bindings and JAX's own "
        "explanation saying it never saw the function: a bound method ``obj.method`` jitted again, a new "
        "object at each access that JAX's cache held weakly), a new object per call (two function objects of one "
        "definition binding two objects of one class that hold equal values (their attributes, read two levels down: "
        "``collect/object_state.py``) and nothing else different: a ``jax.jit(self.step)`` or a jitted "
        "closure over ``self`` built per object; the fix is one jit outside the object, with the object a pytree or "
        "a static argument equal by value, or, where an installed library jits per object, reusing the object; "
        "reported also for a library's own compiles, and not where the running test's own line calls the "
        "per-object function), an eager ``lax.cond``/``while_loop``/``scan`` whose "
        "bodies are closures traced again at "
        "each call, or nothing (the cache was cleared); every difference found is named. Programs printed "
        "longer than 4,000,000 characters are not fingerprinted. Compiles are paired only where one change "
        "of the user's code merges them: within one test under pytest (parametrizations are separate tests), "
        "one jitted object, or two objects of one function called at one line (a jit rebuilt in a loop) that bind equal "
        "values (two closures over different classes or objects are two functions: one object could not serve both); "
        "a difference in the arguments' signatures is named before a new function object (one object would compile "
        "once per pytree class too), and an earlier compile whose signature agrees is paired first; a function in a "
        "static field (it cannot be a leaf) gets the fix of one function object; "
        "never two compiles under different trace contexts or checking modes (``jax.checking_leaks``, "
        "``debug_nans``: a test re-running code under a check); "
        "never two jit objects with other options (``donate_argnums``, ``static_argnums``, shardings, "
        "``keep_unused``, backend: two functions), never compiles a library both defines and calls. "
        "Under pytest, who chose the variation decides: where the frame that passed both calls' arguments is the "
        "running test's own code (the module pytest collected it from, per its node id, or a ``conftest.py``), a "
        "changed container, class, static value, function in a static field or left-out argument, a weak type "
        "where each variant got its own jit, and an eager ``lax.cond`` the test runs beside its jitted twin are "
        "the test's subject: no finding. A variation a library's frame or a helper module passes stays advice, "
        "and so does a Python scalar then an array in one jitted object's calls.",
        "jit looks up its cache by function object and argument signature, not by program: each new key "
        "traces, lowers and compiles again, and gets the same executable. Nothing in JAX says so; the run just "
        "compiles more often than it has programs.",
        "```python\n@jax.jit\ndef f(x, y):\n    return jnp.sin(x) * y\n\nf(1.0, y)                # x is a weakly "
        "typed Python scalar\nf(jnp.float32(1.0), y)   # JW403: the same program, compiled again\n```",
        "```python\nf(jnp.float32(1.0), y)   # one type for x on every call: one compile\n```",
        "**likely**: the two programs' normalised StableHLO texts have equal digests (not a proof that XLA's "
        "output is byte-identical; ``benchmarks/duplicate_precision.py`` checks the optimised HLO), and the "
        "difference in jit's cache key is read from the two calls' recorded signatures and function objects."),
    RuntimeCode(
        "JW404", "constant-recompile", "warning",
        "A function compiled again into a program that differs from an earlier one only in literal constants "
        "(a learning rate baked in).",
        "Compares the compiles of a function with their constants' values blanked out (same normalisation as "
        "JW403): equal programs whose constants differ mean a Python number reached the program as a constant "
        "(a closure or global read at trace time, a static argument, a rebuilt ``jax.jit``). Names the values "
        "(\"0.1 vs 0.01 baked in as a constant\") and the seconds the extra compile took. Paired within one "
        "test under pytest and with the same jit options, like JW403, but across call sites: the fix is in "
        "the definition.",
        "Every value compiles a new program: a hyperparameter sweep, a schedule or a temperature changed per "
        "call compiles each time (and never hits the persistent cache: the key covers the program). As a traced "
        "argument the value is read at run time and one program serves all of them.",
        "```python\ndef make_step(lr):\n    @jax.jit\n    def step(w, g):\n        return w - lr * g   # lr is a "
        "constant in the program\n    return step\n\nfor lr in (0.1, 0.01):\n    make_step(lr)(w, g)     # JW404: "
        "0.1 vs 0.01\n```",
        "```python\n@jax.jit\ndef step(w, g, lr):\n    return w - lr * g\n\nfor lr in (0.1, 0.01):\n    step(w, g, "
        "lr)             # one compile\n# optax: optax.inject_hyperparams(optax.adam)(learning_rate=lr)\n```",
        "**likely**: the two programs' normalised texts are equal with every constant blanked and differ with "
        "them; the differing values are listed."),
    RuntimeCode(
        "JW501", "off-fast-path", "warning",
        "Calls that never reach JAX's fast C++ dispatch path, with no trace or compile to show for it.",
        "Counts, per jitted function, the calls that went through JAX's Python dispatch path without "
        "tracing or compiling anything, and reports a function with at least 10 of them at the user's line "
        "of the first such call. It gives the measured cost per call (median), the cost of a fast call (a "
        "reference: a tiny jitted function's cached call, measured once on the same machine), the time lost "
        "(the number of slow calls times the median's excess over the fast call; for a program with effects, "
        "whose call on the CPU backend returns only after the program ran (measured; on an accelerator the call "
        "may return before the run, no wait shows and the whole call is charged), each call's wait past a whole call of a tiny program with a "
        "no-op callback is its program's execution, which moving the callback out would not save: it is not "
        "counted, but for what the host's time since the previous call could have overlapped) and the cause, "
        "read from "
        "the checks JAX itself makes before it lets a call take the fast path: effects in the program "
        "(``jax.debug.print``, ``jax.debug.callback``, ``io_callback``, ordered effects; each with its line), "
        "host callbacks (JAX 0.6-0.8), mutable-array ref effects, ``jax_debug_key_reuse``, PGLE profiling, "
        "``jax_no_execution``, or an executable the C++ path cannot run. Anything else, and a call JAX had "
        "made fast-path ready that still came back through Python, is reported with an unknown cause. A cause "
        "the program opted into with a debugging or profiling setting (``jax_debug_key_reuse``, PGLE) is its "
        "documented price: reported only when the time lost is at least 10% of the watched run. Not counted: "
        "calls with tracers (a jitted function "
        "under ``grad``/``vmap`` outside jit), calls that traced or compiled (the compile path), and "
        "anything on the fast path, which watch never sees and which costs nothing.",
        "Each such call costs tens to hundreds of microseconds instead of a few (a ``jax.debug.callback`` "
        "in a tiny function: about 100 us against 3 us on a CPU). Nothing is logged, and neither "
        "``jax_log_compiles`` nor ``jax_explain_cache_misses`` shows it: in a training step called a "
        "million times it is minutes.",
        "```python\n@jax.jit\ndef step(x):\n    jax.debug.callback(log, x)   # every call takes the "
        "Python path\n    return x + 1\n\nfor _ in range(10_000):\n    x = step(x)                 # JW501\n```",
        "```python\n@jax.jit\ndef step(x):\n    return x + 1\n\nfor i in range(10_000):\n    x = step(x)\n"
        "    if i % 1000 == 0:\n        log(x)                   # outside jit, every N steps\n```",
        "**certain** that the calls took the Python path (counted at JAX's dispatch), **likely** for the "
        "time lost (medians of timed calls against a reference fast call on the same machine); the cause is "
        "the check JAX failed, or \"unknown\"."),
)}


def _with_taxonomy(codes: dict[str, RuntimeCode]) -> dict[str, RuntimeCode]:
    """The codes above and the taxonomy's (``runtime_codes_taxonomy.py``, docs/pitfalls.md), in code order."""
    from .runtime_codes_taxonomy import TAXONOMY_CODES

    return dict(sorted({**codes, **{t[0]: RuntimeCode(*t) for t in TAXONOMY_CODES}}.items()))


CODES = _with_taxonomy(CODES)


def table() -> str:
    """Plain-text table of every runtime code (``jitscope rules``)."""
    w = max(len(c.name) for c in CODES.values())
    lines = [f"{'code':<6} {'name':<{w}} {'severity':<8} summary"]
    lines += [f"{c.code:<6} {c.name:<{w}} {c.severity:<8} {c.summary}" for c in CODES.values()]
    return "\n".join(lines) + "\n"


def _sections(c: RuntimeCode) -> dict[str, str]:
    return dict(zip(SECTIONS, (c.what, c.why, c.example, c.fix, c.evidence), strict=True))


def page_text(code: str) -> str | None:
    """One code's page as plain text (``jitscope rules JW201``), or None for an unknown code."""
    c = CODES.get(code.upper())
    if c is None:
        return None
    out = [f"{c.code} {c.name} ({c.severity}, runtime: jitscope watch)", "", c.summary]
    for title, text in _sections(c).items():
        if text:
            out += ["", f"## {title}", "", text]
    return "\n".join(out) + "\n"


def markdown() -> str:
    """The whole catalog as Markdown: the content of docs/runtime-findings.md."""
    out = ["# jitscope watch: runtime findings", "",
           "<!-- Generated by `jitscope rules --runtime --markdown` from analyze/runtime_codes.py; do not edit "
           "by hand. -->", "",
           "`jitscope watch` (and `jitscope.watch()`) reports these while the program runs, from what JAX "
           "does at each trace and compile and at each call that takes its Python dispatch path (never on "
           "calls its C++ dispatch cache serves). The lint rules (`JSxxx`, docs/rules.md) "
           "find the same problems by reading source; these codes say they happened. Codes are stable and "
           "never reused.", "",
           "| code | name | severity | summary |", "|---|---|---|---|"]
    out += [f"| [{c.code}](#{c.code.lower()}) | `{c.name}` | {c.severity} | {c.summary.replace('|', '&#124;')} |"
            for c in CODES.values()]
    group = None
    for c in CODES.values():
        if c.code[:3] != group:
            group = c.code[:3]
            out += ["", f"## {group}xx: {GROUPS.get(group, '')}"]
        out += ["", f"### {c.code}", "", f"**{c.name}** · {c.severity}", "", c.summary]
        for title, text in _sections(c).items():
            if text:
                out += ["", f"#### {title}", "", text]
    return "\n".join(out) + "\n"
