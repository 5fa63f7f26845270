"""A ``WarmupPlan`` as a runnable Python warm-up script (``jitscope warmup RUN.json -o warmup.py``).

The script depends on JAX only (not on jitscope), so it ships with the program. Run as
``python warmup.py`` it compiles every entry and says what it did; imported (``import warmup;
warmup.warmup()``) it fills the jit caches of the process that imports it, which is how a server warms
up before its first request. Functions and signatures the plan could not express are listed as
comments, never compiled.

Paths (the definition files and the ``sys.path`` roots their modules import from) are written
relative to the script's own directory, so the script keeps working when the project is moved or
checked out elsewhere with the script in the same place relative to it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from .._version import __version__
from ..analyze.warmup_plan import WarmupPlan

_RUNTIME = '''
HERE = os.path.dirname(os.path.abspath(__file__))


def S(shape, dtype, weak_type=False, device=None, memory_kind=None):
    """One array argument: jax.ShapeDtypeStruct (a committed array's device as jax.devices() id)."""
    sharding = None
    if device is not None:
        found = [d for d in jax.devices() if d.id == device]
        if not found:
            raise LookupError(f"device id {device} is not one of this process's devices")
        kind = {"memory_kind": memory_kind} if memory_kind else {}
        sharding = jax.sharding.SingleDeviceSharding(found[0], **kind)
    return jax.ShapeDtypeStruct(shape, jnp.dtype(dtype), weak_type=weak_type, sharding=sharding)


class Skip(Exception):
    """An entry this process cannot warm up (its reason is printed)."""


def _module(name, file, root):
    mod = sys.modules.get(name)
    if mod is None:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is None or not name.startswith(e.name):
                raise
            where = os.path.normpath(os.path.join(HERE, root))
            sys.path.insert(0, where)  # only while importing: the program's own sys.path stays as it was
            try:
                mod = importlib.import_module(name)
            finally:
                sys.path.remove(where)
    got = os.path.abspath(getattr(mod, "__file__", None) or "")
    want = os.path.normpath(os.path.join(HERE, file))
    if os.path.exists(want) and os.path.exists(got) and not os.path.samefile(got, want):
        print(f"warmup: note: {name} is {got}, recorded as {want}", file=sys.stderr)
    return mod


def _unwrap(fn):
    for _ in range(20):
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            return fn
        fn = inner
    return fn


def _jitted(mod, name):
    """The jitted object the program calls: mod.name itself, or the one module global that jits it."""
    obj = getattr(mod, name, None)
    if obj is None:
        raise Skip(f"{mod.__name__} has no attribute {name}")
    if callable(getattr(obj, "lower", None)):
        return obj
    found = {id(v): v for v in vars(mod).values()
             if callable(getattr(v, "lower", None)) and _unwrap(v) is obj and v is not obj}
    if len(found) != 1:
        how = "no module global jits it" if not found else f"{len(found)} module globals jit it"
        raise Skip(f"{mod.__name__}.{name} is not jitted and {how}: call it through the jitted object")
    return next(iter(found.values()))


def _prepare(entry):
    module, name, file, root, x64, specs, _signature = entry
    if x64 and not jax.config.jax_enable_x64:
        raise Skip("has 64-bit arguments: the program ran with jax_enable_x64 (set JAX_ENABLE_X64=1)")
    fn = _jitted(_module(module, file, root), name)
    args, kwargs = specs()
    return lambda: fn.lower(*args, **kwargs).compile()


COMPILED = []  # every executable compiled here, for the life of the process


def warmup(threads=THREADS, verbose=True):
    """Compile every entry of CALLS ahead of time, in this process; returns counts by outcome.

    threads > 1 compiles in a thread pool (imports and argument specs are prepared first, here).
    """
    t0 = time.perf_counter()
    counts = {"compiled": 0, "skipped": 0, "failed": 0}
    jobs = []

    def say(outcome, entry, text):
        counts[outcome] += 1
        if verbose:
            print(f"warmup: {outcome}: {entry[0]}.{entry[1]}({entry[6]}): {text}", file=sys.stderr)

    for entry in CALLS:
        try:
            jobs.append((entry, _prepare(entry)))
        except Skip as e:
            say("skipped", entry, e)
        except Exception as e:  # an import or spec error: the others still warm up
            say("failed", entry, f"{type(e).__name__}: {' '.join(str(e).split())[:300]}")

    def run(job):
        entry, compile_it = job
        try:
            COMPILED.append(compile_it())  # kept alive: JAX's caches may hold its pieces only weakly
            return entry, None
        except Exception as e:
            return entry, f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"

    if threads > 1 and len(jobs) > 1:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(run, jobs))
    else:
        done = [run(job) for job in jobs]
    for entry, error in done:
        if error is None:
            counts["compiled"] += 1
        else:
            say("failed", entry, error)
    if verbose:
        print(f"warmup: compiled {counts['compiled']} of {len(CALLS)} in {time.perf_counter() - t0:.2f} s"
              f" ({counts['skipped']} skipped, {counts['failed']} failed; {len(NOT_COVERED)} not covered"
              " by this script, listed in it)", file=sys.stderr)
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=THREADS, help=f"compile in N threads (default {THREADS})")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    opts = parser.parse_args(argv)
    counts = warmup(threads=max(1, opts.threads), verbose=not opts.quiet)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def render(plan: WarmupPlan, script_path: str, *, threads: int = 1, source: str = "") -> str:
    """The script's text; paths relative to the directory of ``script_path``; ``source`` names the run."""
    here = os.path.dirname(os.path.abspath(script_path))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f'"""Warm-up script from {source or "a watch run"} (jitscope {__version__}, {stamp}).',
        "",
        f"Compiles {len(plan.calls)} (function, signature) pairs ahead of time with jax.ShapeDtypeStruct,",
        f"covering {plan.covered} of the run's {plan.compiles} compiles. `python warmup.py` compiles them (and fills",
        "the persistent compilation cache when the program enables one); `import warmup; warmup.warmup()` in the",
        "program, before its first call, fills that process's own jit caches, so the calls compile nothing.",
        "Check it: `jitscope watch --warmup THIS_SCRIPT program.py ...` lists every compile it missed (exit 3).",
        '"""',
        "",
        "import argparse",
        "import concurrent.futures",
        "import importlib",
        "import os",
        "import sys",
        "import time",
        "",
        "import jax",
        "import jax.numpy as jnp",
        "",
        f"THREADS = {max(1, int(threads))}",
        "",
        "# (module, function, definition file, import root, needs x64, argument specs, signature as recorded)",
        "CALLS = [",
    ]
    for c in plan.calls:
        args = c.args[0] + "," if len(c.args) == 1 else ", ".join(c.args)
        kwargs = ", ".join(f"{k!r}: {v}" for k, v in c.kwargs.items())
        cost = f"{c.compiles} compile{'s' if c.compiles != 1 else ''}, {c.seconds:.3f} s in the run"
        lines.append(f"    # {c.function}({c.signature}): {cost}")
        lines.append(f"    ({c.module!r}, {c.function!r}, {_rel(c.file, here)!r}, {_rel(c.root, here)!r}, {c.x64}, "
                     f"lambda: (({args}), {{{kwargs}}}), {c.signature!r}),")
    lines.append("]")
    lines.append("")
    lines.append("# Not covered (listed, never guessed): compiles this script cannot redo, and why.")
    if not plan.skipped:
        lines.append("#   none")
    for s in plan.skipped:
        where = f" at {_rel_loc(s.where, here)}" if s.where else ""
        n = f"{s.compiles} compile{'s' if s.compiles != 1 else ''}, {s.seconds:.3f} s"
        lines.append(f"#   {s.function}{where} ({n}): {s.reason}")
        for sig in s.signatures:
            lines.append(f"#       {sig}")
    lines.append("NOT_COVERED = " + repr([s.function for s in plan.skipped]))
    return "\n".join(lines) + "\n" + _RUNTIME


def _rel(path: str, here: str) -> str:
    return os.path.relpath(path, here) if path else path


def _rel_loc(where: str, here: str) -> str:
    file, _, line = where.rpartition(":")
    return f"{_rel(file, here)}:{line}" if file and line.isdigit() else where
