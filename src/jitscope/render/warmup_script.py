"""A ``WarmupPlan`` as a runnable Python warm-up script (``jitscope warmup RUN.json -o warmup.py``).

The script depends on JAX only (not on jitscope), so it ships with the program. Run as
``python warmup.py`` it compiles every entry and says what it did; imported (``import warmup;
warmup.warmup()``) it fills the jit caches of the process that imports it, which is how a server warms
up before its first request. Functions and signatures the plan could not express are listed as
comments, never compiled.

Paths (the definition files and the ``sys.path`` roots their modules import from) are written
relative to the script's own directory, so the script keeps working when the project is moved or
checked out elsewhere with the script in the same place relative to it.

Code from values, never from text (issue #23 item 1): a run is a file anyone can edit, so nothing read
from it is pasted. The plan's values (``analyze/warmup_values.py``) become AST nodes, one emitter per
node kind (``emits``: a new kind of argument is one more emitter); strings from the run reach the script
only as string constants, comments and the docstring hold none of its text, and the finished text is
compiled (and its two tables counted) before it is returned.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .._version import __version__
from ..analyze.warmup_plan import WarmupCall, WarmupPlan
from ..analyze.warmup_values import ArraySpec, Container, Literal, Node

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


def _printable(text):
    """Text as the terminal may show it: control characters escaped, never interpreted."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


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
            print(f"warmup: {outcome}: {entry[0]}.{entry[1]}({_printable(entry[6])}): {_printable(text)}",
                  file=sys.stderr)

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
    """The script's text; paths relative to the directory of ``script_path``; ``source`` names the run.

    Raises:
        ValueError: the text does not compile or holds other tables than the plan's (a bug, never a run's
            text: nothing of the run is pasted).
    """
    here = os.path.dirname(os.path.abspath(script_path))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    calls = [_statement_text(_call_entry(c, here)) for c in plan.calls]
    skipped = [_statement_text(_value(
        (s.function, _rel_loc(s.where, here) if s.where else "", s.reason, list(s.signatures), s.compiles,
         round(s.seconds, 6)))) for s in plan.skipped]
    lines = [
        f'"""Warm-up script from a watch run (jitscope {__version__}, {stamp}; the run: SOURCE below).',
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
        "SOURCE = " + _statement_text(_value(source or "")),
        "",
        "# (module, function, definition file, import root, needs x64, argument specs, signature as recorded)",
        "CALLS = [",
    ]
    for c, text in zip(plan.calls, calls):
        lines.append(f"    # {int(c.compiles)} compile{'s' if c.compiles != 1 else ''}, {float(c.seconds):.3f} s in the run")
        lines.append(f"    {text},")
    lines.append("]")
    lines.append("")
    lines.append("# Not covered (listed, never guessed): compiles this script cannot redo, and why:")
    lines.append("# (function, definition, reason, signatures as recorded, compiles, seconds in the run)")
    lines.append("NOT_COVERED = [")
    lines += [f"    {text}," for text in skipped]
    lines.append("]")
    text = "\n".join(lines) + "\n" + _RUNTIME
    _check(text, script_path, len(plan.calls), len(plan.skipped))
    return text


# -- values to code: one emitter per node kind ------------------------------------------------------------
Emitter = Callable[[Any], ast.expr]
_EMITTERS: dict[type, Emitter] = {}


def emits(kind: type) -> Callable[[Emitter], Emitter]:
    """Register the emitter of one node kind (``analyze/warmup_values.py``): node -> ``ast.expr``."""
    def register(fn: Emitter) -> Emitter:
        _EMITTERS[kind] = fn
        return fn
    return register


def expression(node: Node) -> ast.expr:
    """The AST of the expression that rebuilds ``node`` in the script."""
    emit = _EMITTERS.get(type(node))
    if emit is None:
        raise TypeError(f"no warm-up emitter for {type(node).__name__}")
    return emit(node)


def expression_text(node: Node) -> str:
    """The expression for ``node`` as text (``S((8,), 'float32')``), as the script holds it."""
    return ast.unparse(expression(node))


@emits(ArraySpec)
def _array(spec: ArraySpec) -> ast.expr:
    keywords = []
    if spec.weak_type:
        keywords.append(ast.keyword("weak_type", _value(True)))
    if spec.device is not None:
        keywords.append(ast.keyword("device", _value(int(spec.device))))
        if spec.memory_kind:
            keywords.append(ast.keyword("memory_kind", _value(str(spec.memory_kind))))
    shape = tuple(int(d) for d in spec.shape)
    return ast.Call(ast.Name("S", ast.Load()), [_value(shape), _value(str(spec.dtype))], keywords)


@emits(Literal)
def _literal(lit: Literal) -> ast.expr:
    return _value(lit.value)


@emits(Container)
def _container(c: Container) -> ast.expr:
    items = [expression(n) for n in c.items]
    if c.kind == "dict":
        return ast.Dict([_value(k) for k in c.keys], items)  # type: ignore[arg-type]
    if c.kind == "list":
        return ast.List(items, ast.Load())
    if c.kind == "tuple":
        return ast.Tuple(items, ast.Load())
    raise TypeError(f"no warm-up emitter for a {c.kind!r} container")


def _value(value: Any) -> ast.expr:
    """A Python value of the literal types as an AST (strings as constants: their text is never code)."""
    if value is None or type(value) in (bool, int, float, complex, str, bytes):
        return ast.Constant(value)
    if type(value) is tuple:
        return ast.Tuple([_value(v) for v in value], ast.Load())
    if type(value) is list:
        return ast.List([_value(v) for v in value], ast.Load())
    if type(value) is set:
        if not value:
            return ast.Call(ast.Name("set", ast.Load()), [], [])
        return ast.Set([_value(v) for v in sorted(value, key=repr)])
    if type(value) is dict:
        return ast.Dict([_value(k) for k in value], [_value(v) for v in value.values()])
    raise TypeError(f"not a literal value: {type(value).__name__}")


def _call_entry(c: WarmupCall, here: str) -> ast.expr:
    """``(module, function, file, root, x64, lambda: ((args,), {kwargs}), signature)`` of one call."""
    specs = ast.Lambda(
        ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        ast.Tuple([ast.Tuple([expression(a) for a in c.args], ast.Load()),
                   ast.Dict([_value(str(k)) for k in c.kwargs], [expression(v) for v in c.kwargs.values()])],
                  ast.Load()))
    return ast.Tuple([_value(c.module), _value(c.function), _value(_rel(c.file, here)), _value(_rel(c.root, here)),
                      _value(bool(c.x64)), specs, _value(c.signature)], ast.Load())


def _statement_text(node: ast.expr) -> str:
    return ast.unparse(ast.fix_missing_locations(ast.Expression(node)))


def _check(text: str, script_path: str, calls: int, skipped: int) -> None:
    """Compile the script, and count its two tables: nothing of a run can have added a statement or an entry."""
    try:
        compile(text, script_path, "exec", dont_inherit=True)
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as e:
        raise ValueError(f"the warm-up script does not compile ({e}); this is a bug in jitscope") from None
    tables = {t.id: len(node.value.elts) for node in tree.body if isinstance(node, ast.Assign)
              for t in node.targets if isinstance(t, ast.Name) and isinstance(node.value, ast.List)}
    if tables.get("CALLS") != calls or tables.get("NOT_COVERED") != skipped:
        raise ValueError("the warm-up script's tables do not match its plan; this is a bug in jitscope")


def _rel(path: str, here: str) -> str:
    return os.path.relpath(path, here) if path else path


def _rel_loc(where: str, here: str) -> str:
    file, _, line = where.rpartition(":")
    return f"{_rel(file, here)}:{line}" if file and line.isdigit() else where
