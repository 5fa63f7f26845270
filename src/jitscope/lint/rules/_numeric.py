"""What the numeric-range rules (JS306, JS307) share: where a Python number meets a JAX array."""

from __future__ import annotations

import ast
import os
from functools import lru_cache

from ...jaxmodel.dtypes import DtypeOf
from ...jaxmodel.values import DTYPE_PREDICATES, LIST_RETURNING
from ..context import Context
from ..source import LazyPattern

# jnp functions whose arguments are values (a Python number among them becomes an array), not shapes or axes
VALUE_FUNCS = frozenset({"asarray", "array", "minimum", "maximum", "clip", "where", "add", "subtract", "multiply",
                         "floor_divide", "mod", "remainder", "less", "less_equal", "greater", "greater_equal",
                         "equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "right_shift",
                         "left_shift", "true_divide", "divide"})
AT_METHODS = frozenset({"set", "add", "multiply", "min", "max"})
_X64 = ("jax_enable_x64", "enable_x64", "JAX_ENABLE_X64")


def is_jax_array(ctx: Context, node: ast.AST) -> bool:
    """Certainly a JAX array: a traced value, a jnp call's result, or a name of a stated strong dtype."""
    if ctx.is_traced(node):
        return True
    if isinstance(node, ast.Call):
        q = ctx.resolve(node.func) or ""
        return q.startswith("jax.numpy.") and q not in DTYPE_PREDICATES and q not in LIST_RETURNING
    d = DtypeOf(ctx.frame.node, ctx.resolve)(node) if isinstance(node, ast.Name) else None
    return d is not None and not d[1]


def x64_file(ctx: Context) -> bool:
    return ctx.memo(_mentions_x64)


def _mentions_x64(ctx: Context) -> bool:
    return any(k in ctx.text for k in _X64) or package_enables_x64(os.path.dirname(os.path.abspath(ctx.filename)))


# `jax.config.update("jax_enable_x64", True)`, `config.update('jax_enable_x64', 1)`,
# `os.environ["JAX_ENABLE_X64"] = "1"`: x64 turned on for the whole process
_ENABLES_X64 = LazyPattern(r"""update\(\s*["']jax_enable_x64["']\s*,\s*(True|1)\b|"""
                          r"""["']JAX_ENABLE_X64["']\s*\]\s*=\s*["'](1|true|True)["']""")


def package_enables_x64(directory: str) -> bool:
    """Does an ``__init__.py`` of the package holding ``directory`` (its own or an enclosing package's) turn on
    ``jax_enable_x64`` at import? Python runs every enclosing package's ``__init__`` before a module of the
    package, so x64 is on whenever the module's code runs. Each ``__init__.py`` is read once per version of it
    (its path, modification time and size): a process that lints again after an edit sees the edit."""
    d = directory
    while os.path.isfile(init := os.path.join(d, "__init__.py")):
        try:
            st = os.stat(init)
        except OSError:
            return False
        if _init_enables_x64(init, st.st_mtime_ns, st.st_size):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent
    return False


@lru_cache(maxsize=256)
def _init_enables_x64(path: str, mtime_ns: int, size: int) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return _ENABLES_X64.search(f.read(200_000)) is not None
    except OSError:
        return False
