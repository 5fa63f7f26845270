"""Library functions whose callers are not linted: what fails whenever the user jits them.

A public function of a package (a module-level function or a method of a module-level class) that no jit
in the linted files reaches may still be traced: its users call it from their own jitted code. The model
of such a caller says little about the parameters (a user may pass Python numbers, NumPy arrays or
tracers), so every parameter stays a Python value. What it does say: under jit every ``jnp``/``lax``
operation is staged and returns a tracer, whatever its inputs are (``lint/returns.py``, the staged
helpers of docs/lint.md). So a Python ``if``/``assert``/``and``/``float()``/``int()`` on a value the body
itself makes with ``jnp`` (``n = jnp.linalg.norm(v); if n == 0.0:``) works when the function is called
eagerly and raises ``TracerBoolConversionError``/``ConcretizationTypeError`` whenever a caller jits it.

Nothing proves that any caller does, so these findings are ``info`` (never a warning or an error) and say
so; the walk runs only the rules that look inside traced code, with nothing traced but the body's own
``jnp`` results (``StaticSpec.python_only``: no claims resting on staging alone), and records no calls
(a callee is not made "traced" by a guess). Not walked: functions any jit of the linted files reaches (the
call graph already judged them), scripts and test files (their callers are in the file), functions the
module's eager model says run only eagerly, private names (their callers are in the module), and the
host protocol methods (``__repr__``, ``__float__``, ...), which concretize on purpose.
"""

from __future__ import annotations

import ast
import re

from . import facts
from .context import Context
from .scope import StaticSpec
from .source import LazyPattern

UNKNOWN = facts.UNKNOWN
ENABLED = False  # off unless asked (`--unknown-callers`, config `unknown-callers`); jitscope.lint sets it per run

# Protocol methods that hand a value to the host (printing, hashing, conversion): they concretize on purpose.
_HOST_DUNDERS = frozenset({
    "__repr__", "__str__", "__format__", "__hash__", "__float__", "__int__", "__index__", "__complex__",
    "__bytes__", "__array__", "__iter__", "__contains__", "__reduce__", "__getstate__", "__setstate__",
    "__init_subclass__", "__class_getitem__", "__del__", "__enter__", "__exit__", "__len__",
})
_STAGED_HEADS = ("jax.numpy.", "jax.lax.", "jax.scipy.", "jax.nn.", "jax.random.")
_JAX_MODULES = frozenset({"jax", "jax.numpy", "jax.lax", "jax.scipy", "jax.nn", "jax.random"})
# A line that demands a Python value of something: a test, a conversion, NumPy, a size (`_stages_and_demands`).
_DEMAND = LazyPattern(r"^\s*(?:if|elif|while|assert)\b|\b(?:and|or|not)\b| if |\b(?:float|int|bool|complex|range)\(|"
                     r"\.(?:item|tolist)\(|\bnp\.|\bnumpy\.|\b(?:arange|zeros|ones|full|empty|eye|linspace|tri)\(")
# Functions made to show results on the host (by name, or by calling a plotting library).
_DISPLAY_WORDS = ("plot", "figure", "show", "render", "draw", "display", "visuali", "animate", "print", "summary",
                  "report", "savefig")
_PLOTS = LazyPattern(r"\b(?:plt|matplotlib|seaborn|sns|plotly|ax|axes|fig)\.")
_WORD = LazyPattern(r"[A-Za-z_]\w*")
# `name = ...`, `a, b = ...`, `x += ...`, `n: int = ...` (not `==`): the names a line binds.
_ASSIGN = LazyPattern(r"^\s*([A-Za-z_][\w, *]*?)\s*(?::[^=]*)?[-+*/%@&|^]?=(?!=)")


def candidates(ctx: Context, reached: set) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, StaticSpec]]:
    """The importable functions of a package module that nothing linted traces, each with the spec of an
    unknown caller that jits it (every parameter a Python value, the body staged on some way)."""
    if facts.is_script(ctx) or _test_file(ctx.filename):
        return []
    aliases = ctx.info.module_aliases
    heads = [rf"\b{re.escape(k)}\." for k, q in aliases.items() if q in _JAX_MODULES] + [
        rf"\b{re.escape(k)}\(" for k, q in aliases.items() if q.startswith(_STAGED_HEADS)]
    if not heads:
        return []  # nothing here names jnp/lax at module level: no jnp result to demand
    uses = re.compile("|".join(heads))
    out = []
    for stmt in ctx.tree.body:
        defs = [(s, True) for s in stmt.body] if isinstance(stmt, ast.ClassDef) else [(stmt, False)]
        for fn, method in defs:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn in reached:
                continue
            if fn.name.startswith("_") and not (fn.name.startswith("__") and fn.name.endswith("__")):
                continue
            if fn.name in _HOST_DUNDERS or any(w in fn.name.lower() for w in _DISPLAY_WORDS) or \
                    not _stages_and_demands(ctx, fn, uses):
                continue
            a = fn.args
            params = tuple(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
            where = f"`{getattr(stmt, 'name', '')}.{fn.name}`" if method else f"`{fn.name}`"
            via = (f"a caller may jit {where} (public; no jit of it is seen in the linted files, and eager calls "
                   "work)")
            out.append((fn, StaticSpec(argnames=params, wrapper=UNKNOWN, via=via, staged="may", closed=False,
                                       python_only=True)))
    return out


def _test_file(filename: str) -> bool:
    """Is ``filename`` a test module (``test_*.py``, ``*_test.py``, a conftest, or under ``tests/``)?"""
    base = filename.replace("\\", "/").rpartition("/")[2]
    return base.startswith(("test_", "conftest")) or base.endswith("_test.py") or "/tests/" in filename


def _stages_and_demands(ctx: Context, fn: ast.AST, uses: re.Pattern) -> bool:
    """Does a line of the body demand a Python value (an ``if``/``while``/``assert``, ``and``/``or``/``not``,
    ``float()``, ``.item()``, NumPy, a size) of something that reads a ``jnp``/``lax`` name or a name bound from
    one on an earlier line (transitively)? A cheap over-approximation on the source text, so that only such
    functions are walked (the walk, with the value model, decides)."""
    lines = ctx.memo(_lines)
    body = lines[fn.lineno - 1:getattr(fn, "end_lineno", None) or len(lines)]  # type: ignore[attr-defined]
    if any(_PLOTS.search(line) for line in body):
        return False  # it draws or writes with a plotting library: host code, never under a user's jit
    reading = [bool(uses.search(line)) for line in body]
    if not any(reading):
        return False
    demands = [i for i, line in enumerate(body) if _DEMAND.search(line)]
    if not demands:
        return False
    if any(reading[i] for i in demands):
        return True
    binds = [(m, line) for line in body if (m := _ASSIGN.match(line))]
    staged: set[str] = set()
    for _ in range(3):  # names bound from jnp results, a few steps of flow (`n = norm(v); m = n / 2`)
        before = len(staged)
        for m, line in binds:
            if uses.search(line, m.end()) or not staged.isdisjoint(_WORD.findall(line, m.end())):
                staged.update(t.strip().lstrip("*") for t in m.group(1).split(",") if t.strip())
        if len(staged) == before:
            break
    return any(not staged.isdisjoint(_WORD.findall(body[i])) for i in demands)


def _lines(ctx: Context) -> list[str]:
    return ctx.text.splitlines()


def is_test_module(filename: str) -> bool:
    """Is ``filename`` a test module by its own name (``test_*.py``, ``*_test.py``), not a fixture or data file
    that only lives under ``tests/``?"""
    base = filename.replace("\\", "/").rpartition("/")[2]
    return base.startswith("test_") or base.endswith("_test.py")
