"""When a trace-time side effect is the point, not a mistake: lint (JS401-JS403) and watch (JW201) agree.

A ``print``, a counter or a recorded value that runs once per trace is exactly what a test of tracing
wants (``num_traces += 1`` and ``assert num_traces == 1``), and what a function traced to learn shapes
or to count traces does on purpose. Such effects are not findings in either command:

* in test files: ``test_*.py``, ``*_test.py``, ``conftest.py``, or a file under a ``tests``/``test``/
  ``testing`` directory (a ``*fixtures*`` directory below it holds inputs, not tests);
* where a name says it is about tracing: the variable, the function or a decorator contains
  ``TRACE_WORDS`` (``n_traces``, ``count_traces``, ``@trace_only``).
* a ``print`` that announces the trace: its arguments are only string literals and the text says tracing
  or compiling (``print("recompiling")``, ``print("tracing f")``): the idiom JAX's own docs use to show when
  jit traces again, printed once per trace on purpose (a print of a value, ``print("x", x)``, stays a
  finding: it shows a tracer, not the value). watch only (``announces_trace``, read from the source line).

(lint's ``rules/_util.trace_time_effect_expected`` applies the same rule to source, with the wrappers
that only trace as well; it keeps its own copy of these two facts until lint reads them from here.)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

TRACE_WORDS = ("trace", "tracing", "jaxpr", "eval_shape", "compile")
_ANNOUNCE = re.compile(r"(?i)\b(re)?(trac(e|es|ed|ing)|compil(e|es|ed|ing|ation))\b")

# JAX's checking modes (``jax.checking_leaks()``, ``jax.debug_nans``/``debug_infs``): a test re-runs code under
# one on purpose (its other tests' bodies inside ``with jax.checking_leaks():``); a function rebuilt there and
# compiled again is that check's run, not a duplicate of the unchecked run's compile (watch, JW403/JW404).
CHECK_MODES = ("jax_check_tracer_leaks", "jax_debug_nans", "jax_debug_infs")


def check_modes() -> tuple[Any, ...] | None:
    """The values of ``CHECK_MODES`` now (public ``jax.config`` reads), None where this JAX cannot say."""
    try:
        import jax

        return tuple(getattr(jax.config, name) for name in CHECK_MODES)
    except Exception:  # noqa: BLE001 - an option renamed or gone in another JAX
        return None


def is_test_file(path: str) -> bool:
    """``test_*.py``, ``*_test.py``, ``conftest.py`` or a file under a ``tests``/``test``/``testing`` directory
    (not below a ``*fixtures*`` directory there)."""
    parts = path.replace("\\", "/").split("/")
    base = parts[-1]
    if base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py":
        return True
    dirs = parts[:-1]
    at = next((i for i, p in enumerate(dirs) if p in ("tests", "test", "testing")), None)
    return at is not None and not any("fixture" in p for p in dirs[at + 1:])


def effect_expected(path: str | None, names: Iterable[str] = ()) -> bool:
    """Is a trace-time effect at ``path`` (its file), touching or inside ``names`` (the variable, the
    function), deliberate?"""
    if path and is_test_file(path):
        return True
    return any(w in n.lower() for n in names if n for w in TRACE_WORDS)


def announces_trace(source: str) -> bool:
    """Is ``source`` (one stripped line) a ``print(...)`` of string literals only whose text says tracing or
    compiling (``print("recompiling")``)?"""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"):
        return False
    if not node.args or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args):
        return False
    return any(_ANNOUNCE.search(a.value) for a in node.args)  # type: ignore[union-attr]
