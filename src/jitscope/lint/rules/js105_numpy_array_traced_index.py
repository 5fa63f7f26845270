"""JS105 numpy-array-traced-index."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._scan import own_statements, statement_bindings
from ._util import short

# NumPy calls that return a new ndarray (not a scalar, a shape or a dtype).
_NUMPY_ARRAYS = frozenset({
    "array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye", "identity",
    "zeros_like", "ones_like", "full_like", "empty_like", "tile", "diag", "stack", "concatenate", "load",
    "loadtxt", "genfromtxt", "fromfile", "frombuffer", "copy", "random.rand", "random.randn", "random.randint",
    "random.normal", "random.uniform", "random.permutation",
})


class NumpyArrayTracedIndex(Rule):
    """A NumPy array (not a NumPy function) indexed by a traced value, or given one as an element.

    ## What it does
    Flags ``a[i]``, ``a[i:j]``, ``a[i] = v`` and ``a[i] += v`` inside a traced function when ``a`` is a NumPy
    array (a name bound once, in the same function or at module level, to ``np.array``,
    ``np.zeros``, ``np.arange``, ``np.load``, ``np.random.rand`` ...) and the index ``i`` or the
    stored value ``v`` is traced. Arithmetic between a NumPy array and a traced value
    (``a + x``, ``a * x``, ``a @ x``) is not flagged: jax arrays win NumPy's operator dispatch
    and it works under jit. JS104 covers NumPy *functions* called on traced values.

    ## Why is this bad?
    NumPy indexes with concrete integers or arrays: it asks the tracer for ``__index__`` or
    ``__array__``, which jit refuses (``TracerIntegerConversionError`` /
    ``TracerArrayConversionError``), and storing a tracer into an ndarray needs its concrete
    value (``ValueError``). Checked under real ``jax.jit``.

    ## Example
    ```python
    TABLE = np.arange(10.0)

    @jax.jit
    def lookup(i):
        return TABLE[i]
    ```

    ## Use instead
    ```python
    TABLE = jnp.arange(10.0)   # or jnp.asarray(TABLE)[i] inside the function

    @jax.jit
    def lookup(i):
        return TABLE[i]
    ```

    ## Fix safety
    No fix is offered: converting the table to a jax array changes its dtype defaults
    (float64 becomes float32 unless x64 is enabled) and its placement.
    """

    code = "JS105"
    name = "numpy-array-traced-index"
    message = "NumPy array `{array}` {how} traced value `{expr}` (fails under jit: NumPy needs a concrete value); use a jax array (`jnp.asarray({array})`)"
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Subscript,)

    def check(self, node: ast.AST, ctx: Context) -> None:
        sub: ast.Subscript = node  # type: ignore[assignment]
        if not isinstance(sub.value, ast.Name) or not _is_numpy_array(ctx, sub.value.id):
            return
        hit = _traced_index(ctx, sub.slice)
        how = "indexed by"
        if hit is None and isinstance(sub.ctx, ast.Store):
            parent = ctx.parents[-1] if ctx.parents else None
            stored = (isinstance(parent, ast.Assign) and sub in parent.targets) or (
                isinstance(parent, ast.AugAssign) and parent.target is sub)  # `a[0] += x`: a[0] = a[0] + x
            if stored and ctx.is_traced(parent.value):  # type: ignore[union-attr]
                hit, how = parent.value, "given an element from"  # type: ignore[union-attr]
        if hit is None:
            return
        ctx.report(self, sub, subject=hit, array=sub.value.id, how=how, expr=short(ctx, hit))


def _traced_index(ctx: Context, index: ast.AST) -> ast.AST | None:
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for p in parts:
        bounds = [p.lower, p.upper, p.step] if isinstance(p, ast.Slice) else [p]
        for b in bounds:
            if b is not None and ctx.is_traced(b):
                return b
    return None


def _is_numpy_array(ctx: Context, name: str) -> bool:
    """Is ``name`` here bound exactly once, to a NumPy array-making call, in this function or the module?"""
    local = ctx._local_frame(name)
    if local is not None:
        if local is not ctx.frame or name in local.params:
            return False
        scope = local.node
    elif ctx.is_module_global(name):
        if name in ctx.info.reassigned_in_functions or ctx.info.module_assign_count.get(name, 0) != 1:
            return False
        scope = ctx.tree
    else:
        return False
    cache = ctx.table(_numpy_names)
    key = scope
    if key not in cache:
        cache[key] = _numpy_names(ctx, scope)
    return name in cache[key]


def _numpy_names(ctx: Context, scope: ast.AST | None) -> set[str]:
    """Names bound exactly once in ``scope`` (statement level), by ``name = np.<array maker>(...)``."""
    if scope is None or isinstance(scope, ast.Lambda):
        return set()
    out = set()
    for name, entries in statement_bindings(own_statements(scope)).items():
        if len(entries) != 1:
            continue
        _, value, plain, _ = entries[0]
        if plain and isinstance(value, ast.Call):
            q = ctx.info.resolve(value.func) or ""
            if q.startswith("numpy.") and q[len("numpy."):] in _NUMPY_ARRAYS:
                out.add(name)
    return out
