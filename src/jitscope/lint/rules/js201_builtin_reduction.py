"""JS201 builtin-reduction."""

from __future__ import annotations

import ast

from ...jaxmodel import values
from ..context import STATIC_ATTRS, Context, container_call
from ..pytrees import array_annotation
from ..rule import Rule
from ._scan import scope_bindings
from ._util import is_builtin, short, used_as_array

_REDUCTIONS = ("sum", "max", "min", "any", "all")


class BuiltinReduction(Rule):
    """Builtin ``sum``/``max``/``min``/``any``/``all`` over a traced array.

    ## What it does
    Flags the Python builtins ``sum``, ``max``, ``min``, ``any`` and ``all`` called with a
    single traced array (or a generator over one) inside a traced function. A generator whose items
    are Python values (``any(isinstance(v, jax.Array) for v in xs)``, ``v.ndim == 1``, ``v is None``)
    stages no JAX op and is not flagged.

    The claim needs the argument to be an array: a Python list or tuple of arrays is traced leaf by leaf
    too, and builtin ``sum`` over a short list of them is k adds, correct where ``jnp.sum`` would
    stack them (and fail on arrays of different shapes). So the finding is a ``warning`` with a fix
    only when the argument is proven an array by how it is made (a jnp/lax call, arithmetic on a
    traced value, an array method, a parameter annotated as an array, a local bound only to such);
    a parameter, attribute or call result of unknown type gets an ``info`` that says the condition.

    ## Why is this bad?
    The builtins iterate over the array in Python. Under jit every element becomes its own
    slice, reshape and add in the graph: builtin ``sum`` over N elements emits O(N)
    operations and compile time grows with N, against one ``reduce_sum`` for
    ``jnp.sum`` (``jitscope scale`` measures the growth on your code). ``max``/``min``/``any``/``all``
    also compare elements in Python, which needs concrete bools and fails under jit.

    ## Example
    ```python
    @jax.jit
    def total(x):
        return sum(x)
    ```

    ## Use instead
    ```python
    @jax.jit
    def total(x):
        return jnp.sum(x, axis=0)
    ```

    ## Fix safety
    The fix (``sum(x)`` -> ``jnp.sum(x, axis=0)``, likewise ``max``/``min``/``any``/``all``;
    offered when ``jax.numpy`` is imported at module level under a name not shadowed at
    the call) is unsafe. ``jnp.sum`` is not a drop-in for builtin ``sum``: on int8/uint8 and
    bool arrays it promotes to a wider (strong) int32 where ``sum`` keeps the dtype (and
    wraps around) or gives a weakly typed int; on an empty array ``sum`` returns the scalar
    ``0`` where ``jnp.sum`` returns zeros of the row shape; and a parameter that is really a
    list of arrays sums element-wise with ``sum`` but may fail with ``jnp.sum``. For
    ``max``/``min``/``any``/``all`` the original raises under jit, so the fix changes
    behaviour (for the better). Review each change; apply with ``--fix --unsafe-fixes``.
    """

    code = "JS201"
    name = "builtin-reduction"
    message = "builtin `{fn}` over traced array `{expr}` unrolls one op per element; use jnp.{fn}"
    severity = "warning"
    fix = "unsafe"
    requires = "staged"
    nodes = (ast.Call,)
    calls = _REDUCTIONS

    def check(self, node: ast.AST, ctx: Context) -> None:
        fn = is_builtin(ctx, node.func, _REDUCTIONS)  # type: ignore[attr-defined]
        if fn is None or len(node.args) != 1 or node.keywords:  # type: ignore[attr-defined]
            return
        arg = node.args[0]  # type: ignore[attr-defined]
        if isinstance(arg, ast.GeneratorExp):
            traced = any(ctx.is_traced(g.iter) for g in arg.generators)
            if traced:  # only items that are arrays unroll JAX ops: `any(isinstance(v, T) for v in xs)` stages none
                targets = {n.id for g in arg.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
                traced = not all(_python_valued(ctx, e, targets) for e in
                                 [arg.elt, *(c for g in arg.generators for c in g.ifs)])
            can_fix = False
        else:
            traced = ctx.is_traced(arg) and not isinstance(arg, (ast.List, ast.Tuple))
            can_fix = True
        if not traced:
            return
        over = arg.generators[0].iter if not can_fix else arg  # type: ignore[attr-defined]
        if fn == "sum" and not proven_array(ctx, over):
            # A parameter, attribute or call result of unknown type: a Python list or tuple of arrays is a pytree
            # of traced leaves too, and builtin `sum` over a short list is k adds, right where `jnp.sum` would
            # stack (and fail on ragged shapes). The claim holds only if it is an array: info, and no fix.
            # (`max`/`min`/`any`/`all` compare items in Python: under jit that fails for a list of arrays too.)
            e = short(ctx, over)
            ctx.report(self, node, f"builtin `sum` over `{e}` unrolls one op per element if `{e}` is an array; "
                       "if it is a list or tuple of arrays (a pytree argument), builtin `sum` is right",
                       severity="info", fn=fn, expr=e, proven_array=False)
            return
        if not can_fix:
            # `jnp.sum(v * v for v in x)` raises: a generator is not an array. Say what to write instead,
            # and that `x` may be a list of arrays (then the builtin is right).
            it = short(ctx, arg.generators[0].iter)  # type: ignore[attr-defined]
            ctx.report(self, node, f"builtin `{fn}` over a generator on traced `{it}` unrolls one op per element; "
                       f"write the body as one array expression over `{it}` and reduce it with jnp.{fn} "
                       "(jnp functions do not take generators)", fn=fn, expr=short(ctx, arg))
            return
        fix = None
        jnp = ctx.jnp_alias()
        if jnp:
            repl = f"{jnp}.{fn}({ctx.segment(arg)}, axis=0)"
            fix = ctx.edit(self, node, repl, f"Replace with `{jnp}.{fn}(..., axis=0)`")
        ctx.report(self, node, fix=fix, fn=fn, expr=short(ctx, arg))


_ARRAY_PREFIXES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.", "numpy.")


def proven_array(ctx: Context, e: ast.AST, depth: int = 0) -> bool:
    """Is ``e`` an array, not a Python container of arrays, by how it is made: a jnp/lax call that returns one
    array, arithmetic on a traced value, an array method or attribute (``x.T``, ``x.reshape(...)``), a slice of
    a proven array, a parameter annotated as an array, or a local name every binding of which is one of these.
    A parameter, attribute or other call of unknown type is not proven: a list of arrays is traced the same."""
    if depth > 8:
        return False
    t = type(e)
    if t in (ast.BinOp, ast.UnaryOp):
        return ctx.is_traced(e)
    if t is ast.Call:
        q = ctx.resolve(e.func) or ""  # type: ignore[attr-defined]
        if q.startswith(_ARRAY_PREFIXES):
            return not container_call(q, e)  # type: ignore[arg-type]
        f = e.func  # type: ignore[attr-defined]
        return isinstance(f, ast.Attribute) and f.attr in _ARRAY_METHODS and ctx.is_traced(f.value)
    if t is ast.Attribute:
        return e.attr in ("T", "mT", "real", "imag") and ctx.is_traced(e.value)  # type: ignore[attr-defined]
    if t is ast.Subscript:
        return proven_array(ctx, e.value, depth + 1)  # type: ignore[attr-defined]
    if t is not ast.Name:
        return False
    fn = ctx.frame.node
    if fn is None or isinstance(fn, ast.Lambda):
        return False
    name = e.id  # type: ignore[attr-defined]
    memo = ctx.frame.scratch.get(proven_array)  # per function: one walk per name, not per call
    if memo is None:
        memo = ctx.frame.scratch[proven_array] = {}
    if name not in memo:
        memo[name] = False  # a name bound from itself (`x = x * 2`) is decided by its other bindings
        memo[name] = _proven_name(ctx, fn, name, depth)
    return memo[name]


def _proven_name(ctx: Context, fn: ast.AST, name: str, depth: int) -> bool:
    args = fn.args  # type: ignore[attr-defined]
    for p in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if p.arg == name:  # annotated as an array, or used like one (`x.shape`, `x[1:]`, `jnp.f(x)`)
            return array_annotation(p.annotation) or used_as_array(ctx, name)
    entries = scope_bindings(ctx, fn).get(name, [])
    return bool(entries) and all(plain and value is not None and proven_array(ctx, value, depth + 1)
                                 for _, value, plain, _ in entries)


_ARRAY_METHODS = frozenset({"reshape", "astype", "ravel", "flatten", "transpose", "swapaxes", "squeeze", "sum",
                            "mean", "prod", "max", "min", "dot", "clip", "round", "conj", "cumsum", "take"})


def _python_valued(ctx: Context, e: ast.AST, targets: set[str]) -> bool:
    """Is ``e`` a Python value whatever the loop variables ``targets`` hold: built from type queries
    (``isinstance``, ``len``: values.TYPE_QUERIES), dtype predicates, static attributes (``v.ndim``), identity
    tests and constants, with no array arithmetic?"""
    t = type(e)
    if t is ast.Constant:
        return True
    if t is ast.Name:
        return e.id not in targets and not ctx.is_traced(e)  # type: ignore[attr-defined]
    if t is ast.Attribute:
        return e.attr in STATIC_ATTRS or _python_valued(ctx, e.value, targets)  # type: ignore[attr-defined]
    if t is ast.Call:
        q = ctx.resolve(e.func) or ""  # type: ignore[attr-defined]
        return q in values.TYPE_QUERIES or q in values.DTYPE_PREDICATES
    if t is ast.Compare:
        if all(type(op) in (ast.Is, ast.IsNot) for op in e.ops):  # type: ignore[attr-defined]
            return True
        return all(_python_valued(ctx, v, targets) for v in (e.left, *e.comparators))  # type: ignore[attr-defined]
    if t is ast.BoolOp:
        return all(_python_valued(ctx, v, targets) for v in e.values)  # type: ignore[attr-defined]
    if t is ast.UnaryOp:
        return _python_valued(ctx, e.operand, targets)  # type: ignore[attr-defined]
    if t in (ast.BinOp, ast.Subscript, ast.Tuple):
        return all(_python_valued(ctx, v, targets) for v in ast.iter_child_nodes(e)
                   if not isinstance(v, (ast.operator, ast.expr_context)))
    return False
