"""A ``WarmupPlan`` as a runnable Python warm-up script (``jitscope warmup RUN.json -o warmup.py``).

The script depends on JAX only (not on jitscope), so it ships with the program: two tables of data
(``CALLS``, ``NOT_COVERED``), then the runtime (``jitscope/_warmup_runtime.py``, copied verbatim: the same
code jitscope runs). ``python warmup.py`` compiles what it can import; ``python warmup.py train.py ARGS``
runs the program warmed (entries of its ``__main__`` at its main guard); ``import warmup;
warmup.warmup()`` in the program fills that process's caches. Compiles the plan could not express are
listed in ``NOT_COVERED``, never compiled.

Paths (the modules' files and the ``sys.path`` roots they import from) are written relative to the
script's own directory, so the script keeps working when the project is moved or checked out elsewhere
with the script in the same place relative to it.

Code from values, never from text (issue #23 item 1): a run is a file anyone can edit, so nothing read
from it is pasted. The plan's entries are Python literals only (``analyze/warmup_values.py`` checked every
field), written with ``ast.unparse`` of constants; strings from the run reach the script only as string
constants, comments and the docstring hold none of its text, and the finished text is compiled, its
tables read back with ``ast.literal_eval`` and counted, before it is returned.
"""

from __future__ import annotations

import ast
import inspect
import os
from datetime import UTC, datetime
from typing import Any

from .. import _warmup_runtime
from .._version import __version__
from ..analyze.warmup_plan import WarmupCall, WarmupPlan
from ..jaxmodel.known import call_contexts


def render(plan: WarmupPlan, script_path: str, *, threads: int = 1, source: str = "") -> str:
    """The script's text; paths relative to the directory of ``script_path``; ``source`` names the run.

    Raises:
        ValueError: the text does not compile or its tables are not the plan's literals (a bug, never a
            run's text: nothing of the run is pasted).
    """
    here = os.path.dirname(os.path.abspath(script_path))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    main = sum(1 for c in plan.calls if c.main)
    lines = [
        f'"""Warm-up script from a watch run (jitscope {__version__}, {stamp}; the run: SOURCE below).',
        "",
        f"Compiles {len(plan.calls)} jit calls ahead of time with jax.ShapeDtypeStruct, covering {plan.covered} of the",
        f"run's {plan.compiles} compiles ({main} of them of the program's own __main__). Needs JAX only.",
        "",
        "  python warmup.py                      compile what can be imported (then it helps only through the",
        "                                        persistent compilation cache: a later process still compiles)",
        "  python warmup.py PROGRAM.py ARGS...   run the program warmed: everything compiled in its own process,",
        "  python warmup.py -m MODULE ARGS...    its __main__ entries at its `if __name__ == '__main__':`",
        "  import warmup; warmup.warmup()        in the program, before its first step: this process's caches",
        "",
        "Check it: `jitscope watch --warmup THIS_SCRIPT program.py ...` lists every compile it missed (exit 3).",
        '"""',
        "",
        "import sys",
        "",
        f"THREADS = {max(1, int(threads))}",
        "SOURCE = " + _text(_value(source or "")),
        "# The library context managers an entry may enter around its call (jitscope's list, not the run's)",
        "CONTEXTS = " + _text(_value(call_contexts())),
        "",
        "# One entry per jit call: the jitted object (module, attribute path), the module's file and import root",
        "# (relative to this script), and the arguments as value records (see the runtime below).",
        "CALLS = [",
    ]
    for c in plan.calls:
        lines.append(f"    # {int(c.compiles)} compile{'s' if c.compiles != 1 else ''}, {float(c.seconds):.3f} s in the run")
        lines.append(f"    {_text(_entry(c, here))},")
    lines.append("]")
    lines.append("")
    lines.append("# Not covered (listed, never guessed): compiles this script cannot redo, and why:")
    lines.append("# (function, definition, reason, signatures as recorded, compiles, seconds in the run)")
    lines.append("NOT_COVERED = [")
    for s in plan.skipped:
        row = (s.function, _rel_loc(s.where, here) if s.where else "", s.reason, list(s.signatures), s.compiles,
               round(s.seconds, 6))
        lines.append(f"    {_text(_value(row))},")
    lines.append("]")
    text = "\n".join(lines) + "\n\n" + runtime_source() + '\n\nif __name__ == "__main__":\n    sys.exit(main())\n'
    _check(text, script_path, plan)
    return text


def runtime_source() -> str:
    """``_warmup_runtime.py`` as the script holds it: its code, without its module docstring."""
    text = inspect.getsource(_warmup_runtime)
    tree = ast.parse(text)
    first = tree.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        text = "\n".join(text.splitlines()[first.end_lineno:]).lstrip("\n")
    return "# ---- the runtime (jitscope/_warmup_runtime.py, copied verbatim) ----\n" + text


def _entry(c: WarmupCall, here: str) -> ast.expr:
    entry = {"module": c.module, "path": tuple(c.path), "function": c.function, "file": _rel(c.file, here),
             "root": _rel(c.root, here), "x64": bool(c.x64), "signature": c.signature,
             "args": tuple(c.args), "kwargs": dict(c.kwargs), "compiles": int(c.compiles),
             "seconds": round(float(c.seconds), 6), "context": c.context}
    return _value(entry)


# -- values to code: literals only ----------------------------------------------------------------------
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


def literal_text(value: Any) -> str:
    """A value of the literal types as the script writes it (one line, a Python literal)."""
    return _text(_value(value))


def _text(node: ast.expr) -> str:
    return ast.unparse(ast.fix_missing_locations(ast.Expression(node)))


def _check(text: str, script_path: str, plan: WarmupPlan) -> None:
    """Compile the script, and read its two tables back as literals: nothing of a run can have added a
    statement, an entry or anything that is not a constant."""
    try:
        compile(text, script_path, "exec", dont_inherit=True)
        tree = ast.parse(text)
        tables = {t.id: ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  for t in node.targets if isinstance(t, ast.Name) and t.id in ("CALLS", "NOT_COVERED")}
    except (SyntaxError, ValueError) as e:
        raise ValueError(f"the warm-up script does not compile or its tables are not literals ({e}); this is a "
                         "bug in jitscope") from None
    if len(tables.get("CALLS", ())) != len(plan.calls) or len(tables.get("NOT_COVERED", ())) != len(plan.skipped):
        raise ValueError("the warm-up script's tables do not match its plan; this is a bug in jitscope")


def _rel(path: str, here: str) -> str:
    return os.path.relpath(path, here) if path else path


def _rel_loc(where: str, here: str) -> str:
    file, _, line = where.rpartition(":")
    return f"{_rel(file, here)}:{line}" if file and line.isdigit() else where
