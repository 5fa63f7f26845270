"""Small helpers shared by rules: short source excerpts and advice text."""

from __future__ import annotations

import ast

from ...jaxmodel import known
from ..astutil import ast_walk
from ..context import ARRAY_METHODS, Context
from ..scope import JIT_LIKE


def short(ctx: Context, node: ast.AST, limit: int = 40) -> str:
    """The node's source on one line, shortened to ``limit`` characters."""
    text = " ".join(ctx.segment(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def traced_params(ctx: Context, node: ast.AST) -> list[str]:
    """Parameters of the traced frame that ``node`` depends on, in source order."""
    params = ctx.frame.params
    seen: list[str] = []
    for n in ast_walk(node):
        if isinstance(n, ast.Name) and n.id in params and n.id not in seen and n.id in ctx.frame.traced_names:
            seen.append(n.id)
    return seen


def used_as_array(ctx: Context, name: str) -> bool:
    """Does the current function use ``name`` like an array (attributes and methods, slicing, jnp/lax calls)?

    ``name[0]`` or ``name["k"]`` is no evidence: tuples, lists and dicts are indexed the same way."""
    fn = ctx.frame.node
    if fn is None:
        return False
    for n in ast_walk(fn):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name and (
                isinstance(n.slice, (ast.Slice, ast.Tuple)) or ctx.is_traced(n.slice)):
            return True
        if isinstance(n, ast.Call) and (ctx.resolve(n.func) or "").startswith(("jax.numpy.", "jax.lax.", "jax.nn.")):
            if any(isinstance(a, ast.Name) and a.id == name for a in n.args):
                return True
    return False


def hint_static(ctx: Context, node: ast.AST, alternative: str = "use jnp.where / lax.cond",
                always: bool = False) -> str:
    """Advice naming the parameter to make static (when it looks like a Python value), else the alternatives."""
    params = [p for p in traced_params(ctx, node) if always or not used_as_array(ctx, p)]
    wrapper = ctx.frame.spec.wrapper if ctx.frame.spec else ""
    if params and wrapper in ("jax.jit", "jax.pmap"):
        names = ", ".join(f'"{p}"' for p in params)
        return f"{alternative}, or mark {names} static (static_argnames={names})"
    return alternative


def is_builtin(ctx: Context, func: ast.AST, names: tuple[str, ...] | frozenset[str]) -> str | None:
    """The builtin's name if ``func`` is an unshadowed builtin in ``names``."""
    if isinstance(func, ast.Name) and func.id in names and ctx.resolve(func) == func.id:
        return func.id
    return None


class Span:
    """A source range from the start of one node to the end of another (for ``ctx.report``)."""

    def __init__(self, start: ast.AST, end: ast.AST) -> None:
        self.lineno = start.lineno  # type: ignore[attr-defined]
        self.col_offset = start.col_offset  # type: ignore[attr-defined]
        self.end_lineno = end.end_lineno  # type: ignore[attr-defined]
        self.end_col_offset = end.end_col_offset  # type: ignore[attr-defined]


def fresh_function(ctx: Context, node: ast.Call, in_loop: bool = False) -> str | None:
    """Describe the fresh function object a jit-like call wraps (lambda, closure, partial), or None.

    In a loop, a local function counts only if it is defined inside the loop: jit's cache is
    keyed on the function object, and one defined before the loop is the same object each time.
    """
    if not node.args or type(node.args[0]) not in (ast.Lambda, ast.Call, ast.Name):
        return None
    if ctx.resolve(node.func) not in JIT_LIKE:
        return None
    fn = node.args[0]
    if isinstance(fn, ast.Lambda):
        return "a lambda"
    if isinstance(fn, ast.Call) and (ctx.resolve(fn.func) or "").endswith("partial"):
        return f"`{short(ctx, fn)}` (a new partial object)"
    if isinstance(fn, ast.Name) and len(ctx.frames) > 1 and fn.id in ctx.frame.nested_defs:
        if not in_loop:
            return f"local function `{fn.id}` (defined anew on every call)"
        if fn.id in ctx.frame.loop_defs:
            return f"local function `{fn.id}` (defined anew in every iteration)"
    return None


def once_per_function(ctx: Context, code: str, var: str) -> bool:
    """True the first time ``(code, var)`` is seen in the current function (report each capture once)."""
    seen = ctx.frame.scratch.get(once_per_function)
    if seen is None:
        seen = ctx.frame.scratch[once_per_function] = set()
    key = (code, var)
    if key in seen:
        return False
    seen.add(key)
    return True


# Wrappers that trace to learn shapes or the graph, never to run it: effects there are the point.
TRACE_ONLY_WRAPPERS = known.TRACE_ONLY
_TRACE_WORDS = ("trace", "tracing", "jaxpr", "eval_shape", "compile")


def is_test_file(path: str) -> bool:
    """``test_*.py``, ``*_test.py``, ``conftest.py`` or a file under a ``tests``/``test`` directory.

    A ``*fixtures*`` directory below ``tests`` holds inputs that tests lint or run (like this
    project's ``tests/lint_fixtures``), not tests: those are linted as ordinary code.
    """
    parts = path.replace("\\", "/").split("/")
    base = parts[-1]
    if base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py":
        return True
    dirs = parts[:-1]
    at = next((i for i, p in enumerate(dirs) if p in ("tests", "test", "testing")), None)
    return at is not None and not any("fixture" in p for p in dirs[at + 1:])


def _test_file(ctx: Context) -> bool:
    return is_test_file(ctx.filename)


def in_test_file(ctx: Context) -> bool:
    """Is the file being linted a test (``is_test_file``)? Once per file."""
    return ctx.memo(_test_file)


def trace_time_effect_expected(ctx: Context, var: str | None = None) -> bool:
    """Is a Python side effect here deliberately run at trace time (so not a finding)?

    True in test files (trace counters, recorded tracers), in functions traced only to learn
    shapes or the graph (``jax.eval_shape``, ``jax.make_jaxpr``), in functions whose name or
    decorators say they are about tracing (``count_traces``, ``@trace_only``), and for a
    variable named for traces (``n_traces += 1``).
    """
    if var is not None and any(w in var.lower() for w in _TRACE_WORDS):
        return True
    if in_test_file(ctx):
        return True
    for f in reversed(ctx.frames[1:]):
        if not f.traced:
            break
        if f.spec is not None and f.spec.wrapper in TRACE_ONLY_WRAPPERS:
            return True
        if any(w in f.name.lower() for w in _TRACE_WORDS):
            return True
        decorators = getattr(f.node, "decorator_list", ())
        if any(any(w in (ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) or "").lower()
                   for w in _TRACE_WORDS) for d in decorators):
            return True
    return False


def static_guard(ctx: Context) -> bool:
    """Is the node being checked inside ``if verbose:`` / ``if debug:`` (a static, non-traced flag)?"""
    for p in reversed(ctx.parents):
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(p, ast.If) and not ctx.is_traced(p.test):
            names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast_walk(p.test)
                     if isinstance(n, (ast.Name, ast.Attribute))}
            if any(w in n.lower() for n in names for w in ("verbose", "debug", "log", "print", "show")):
                return True
    return False


# Exceptions that a failed concretization raises (or derives from): code inside a `try` that catches
# one of them handles the traced case on purpose (haiku's dropout validates `rate` that way).
_CONCRETIZATION_CATCHERS = frozenset({"ConcretizationTypeError", "TracerBoolConversionError",
                                      "TracerIntegerConversionError", "TracerArrayConversionError",
                                      "TypeError", "Exception", "BaseException", "JAXTypeError"})


def handles_concretization(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` (being checked) in the body of a ``try`` whose handlers catch a failed concretization?"""
    parents = [*ctx.parents, node]
    for i in range(len(parents) - 1, -1, -1):
        p = parents[i]
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(p, ast.Try) and i + 1 < len(parents) and parents[i + 1] in p.body:
            for h in p.handlers:
                types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                for t in types:
                    if t is None or (ctx.resolve(t) or "").rpartition(".")[2] in _CONCRETIZATION_CATCHERS:
                        return True
    return False


def from_traced_name(ctx: Context, node: ast.AST) -> bool:
    """Does ``node`` read a traced name (a traced parameter or a value computed from one)?

    ``jnp.all(cutoff < box / 3)`` over Python values is a tracer too under jit, but code that
    applies jnp to Python values alone in a branch is usually a function's eager path.
    """
    return any(type(n) is ast.Name and ctx.is_traced(n) for n in ast_walk(node))


# Uses that a list, a Ref or a Variable would not have: evidence a name holds an array.
ARRAY_ATTRS = frozenset({"shape", "dtype", "ndim", "at", "reshape", "astype", "sum", "mean", "max", "min", "T",
                         "transpose", "ravel", "squeeze", "clip", "dot", "size"})

DICT_METHODS = frozenset({"items", "keys", "values", "get", "update", "pop", "setdefault"})


def str_index(index: ast.AST) -> bool:
    return isinstance(index, ast.Constant) and isinstance(index.value, str)


def dict_like(fn: ast.AST | None, name: str) -> bool:
    """Does function ``fn`` use ``name`` as a dict: string subscripts, dict methods, ``in`` tests?"""
    if fn is None:
        return False
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name:
            if str_index(n.slice):
                return True
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Subscript) and isinstance(n.value.value, ast.Name) \
                and n.value.value.id == name and n.attr not in ARRAY_METHODS and n.attr not in ARRAY_ATTRS:
            return True  # `metrics[k].merge(...)`: its elements are objects, not array elements
        elif isinstance(n, ast.Attribute) and n.attr in DICT_METHODS and isinstance(n.value, ast.Name) \
                and n.value.id == name:
            return True
        elif isinstance(n, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops) \
                and any(isinstance(c, ast.Name) and c.id == name for c in n.comparators):
            return True
    return False
