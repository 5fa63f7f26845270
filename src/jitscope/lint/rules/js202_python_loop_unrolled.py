"""JS202 python-loop-unrolled."""

from __future__ import annotations

import ast

from ...jaxmodel import values
from .. import arraysize, kernels
from ..context import ARRAY_NAMESPACES, Context
from ..rule import Rule
from ._static_args import values_of
from ._util import Span, dict_like, is_builtin, short, used_as_array

UNROLL_THRESHOLD = 16  # literal trip counts below this are treated as intentional small unrolls


class PythonLoopUnrolled(Rule):
    """A Python ``for`` loop or comprehension over a traced array or an array's length, doing array work.

    ## What it does
    Flags, inside a traced function, a ``for`` loop or a list/set/dict comprehension or
    generator that iterates over a traced array (``for row in x``, ``[f(r) for r in x]``,
    also through ``enumerate``/``zip``/``reversed``), over ``range(x.shape[0])`` /
    ``range(len(x))``, or over a literal ``range(N)`` with N of 16 or more, when the body
    does array work. The trip count is shown when it is known statically; nested
    ``range(x.shape[...])`` loops are reported once, on the outer loop, with the product
    (``x.shape[0] * x.shape[1] iterations``). When the iterable is not surely an array (a
    parameter the function never uses as an array, as in ``for w in ws`` over a short list
    of layer weights, or a local not made by ``jnp``/``lax`` or arithmetic), the trip count
    is unknown: the finding says so and has severity ``info``; comprehensions are then
    reported only over a bare parameter. The same holds when the count is set by static values the
    source does not fix (``jnp.arange(2 * r + 1)``, ``range(len(xs))`` of a value not surely an array):
    ``info``, since a short unroll costs little (also ``range(buf.shape[0])``/``range(len(buf))`` of such an
    array made here); an array made here with a literal length below 16
    (``jnp.arange(3)``) is a small unroll, as ``range(3)``, and not reported. A generator passed straight
    to builtin ``sum``/``max``/... is left to JS201. When the suggested fix cannot apply, the
    finding is ``info`` and says why: ``lax.fori_loop``/``lax.scan`` need a carry of one shape and
    items of one shape, so a loop whose carry grows or shrinks (``x = jnp.concatenate([x, y])``,
    ``x = x[: n // 2]``), whose items differ in size (``x[: i + 1]``, ``jnp.arange(i)``), or that
    builds a Python list the function returns as a list, or that selects from a Python list by the loop index
    (``mems[i]``: a traced index cannot), is true but has no such rewrite. Iterating a dict (a name the function
    uses as one, or indexes by the loop's own element: ``for k in d: d[k]``), or ``range(len(d))`` of one, runs
    once per key of the pytree structure and is not reported. In a Pallas kernel
    body (a function handed to ``pallas_call``, ``pl.kernel``, ``core_map``; jaxmodel/kernels.py) the finding is
    ``info``: the kernel is traced once per signature and a Python loop over a block is its idiom. Unrolling is a
    cost, not a failure: the finding is a ``warning`` only where the source fixes a count of 16 or more (a literal
    ``range(N)``, an array made here with that length); a count set by the arguments' shapes (``range(x.shape[0])``,
    ``for row in x``) may be two steps or a static top-k, and is ``info``.

    ## Why is this bad?
    jit traces Python loops by running them: the body is copied into the graph once per
    iteration. Graph size, and compile time (roughly quadratic in the number of ops),
    grow with the trip count, and every new length recompiles. ``lax.scan`` or
    ``lax.fori_loop`` traces the body once and becomes a single XLA while loop.

    ## Example
    ```python
    @jax.jit
    def walk(steps):
        pos = 0.0
        for i in range(steps.shape[0]):
            pos = pos + steps[i]
        return pos
    ```

    ## Use instead
    ```python
    @jax.jit
    def walk(steps):
        final, path = lax.scan(lambda p, s: (p + s, p + s), 0.0, steps)
        return final
    ```
    Loops over a short static Python list, or ``range(3)``, are fine and not flagged; nor is
    ``range(len(window))`` of a Python tuple or list (one item per spatial dimension, say).

    ## Fix safety
    No fix is offered.
    """

    code = "JS202"
    name = "python-loop-unrolled"
    message = "Python loop over {what} is unrolled into the graph ({trips}); use lax.fori_loop (or lax.scan to keep per-step outputs)"
    severity = "warning"
    requires = "staged"
    nodes = (ast.For, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.For):
            if _inner_of_reported(ctx, node):
                return  # the enclosing `range(x.shape[...])` loop reports the product
            claim = _claim(ctx, node.target, node.iter, _nested_bounds(ctx, node))
            body: list[ast.AST] = list(node.body)
            span = Span(node, node.iter)
            premise = node.iter
        else:
            parent = ctx.parents[-1] if ctx.parents else None
            if isinstance(node, ast.GeneratorExp) and isinstance(parent, ast.Call) and len(parent.args) == 1 \
                    and parent.args[0] is node and is_builtin(ctx, parent.func, _REDUCTIONS):
                return  # `sum(f(r) for r in x)`: JS201 reports the reduction
            gens = node.generators  # type: ignore[attr-defined]
            claim = next((c for c in (_claim(ctx, g.target, g.iter, []) for g in gens) if c is not None), None)
            body = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]  # type: ignore[attr-defined]
            span = Span(node, gens[-1].iter)
            premise = gens[-1].iter
        if claim is None:
            return
        what, trips, unknown, names = claim
        if unknown and not isinstance(node, ast.For) and not _bare_param(ctx, node.generators):  # type: ignore[attr-defined]
            return  # `[f(v) for v in carry[1]]`: most likely a short tuple or list of arrays
        if not _does_array_work(ctx, body, names):
            return
        if kernels.in_kernel(ctx):  # a Pallas kernel body: traced once, unrolling is its idiom (jaxmodel/kernels.py)
            msg = (f"Python loop over {what} is unrolled into a Pallas kernel body ({trips}): the kernel is traced once "
                   f"per pallas_call signature and unrolling a fixed loop is how kernels are written; only if the "
                   f"count can be large, use lax.fori_loop inside the kernel")
            ctx.report(self, span, msg, severity="info", subject=premise, what=what, trips=trips)  # type: ignore[arg-type]
            return
        if unknown and not trips.endswith(".shape[0] iterations"):  # a count set by static values or a list's length
            msg = (f"Python loop over {what} is unrolled into the graph, one copy of the body per element ({trips}: "
                   f"a count the source does not fix; a short unroll costs little); if it can be large, use "
                   f"lax.fori_loop (or lax.scan to keep per-step outputs)")
            ctx.report(self, span, msg, severity="info", subject=premise, what=what, trips=trips)  # type: ignore[arg-type]
            return
        if unknown:
            msg = (f"Python loop over {what} is unrolled into the graph, one copy of the body per element "
                   f"(trip count unknown statically; fine for a short list of arrays); "
                   f"if it is an array, use lax.fori_loop (or lax.scan to keep per-step outputs)")
            ctx.report(self, span, msg, severity="info", subject=premise, what=what, trips="unknown")  # type: ignore[arg-type]
            return
        blocked = _fix_blocked(ctx, node) if isinstance(node, ast.For) else None
        if blocked:
            msg = (f"Python loop over {what} is unrolled into the graph ({trips}); lax.fori_loop/lax.scan "
                   f"do not apply as written: {blocked}")
            ctx.report(self, span, msg, severity="info", subject=premise, what=what, trips=trips)  # type: ignore[arg-type]
            return
        if not trips.split(" ", 1)[0].isdigit():
            # `range(x.shape[0])`, `for row in x`: a count the arguments' shapes set, which the source does not bound.
            # Unrolling is a cost, not a failure, and a short loop (two steps, a static top-k) costs little: advice.
            msg = (f"Python loop over {what} is unrolled into the graph, one copy of the body per element ({trips}; the "
                   f"source does not bound it, and a short unroll costs little); if it can be large, use "
                   f"lax.fori_loop (or lax.scan to keep per-step outputs)")
            ctx.report(self, span, msg, severity="info", subject=premise, what=what, trips=trips)  # type: ignore[arg-type]
            return
        ctx.report(self, span, subject=premise, what=what, trips=trips)  # type: ignore[arg-type]  # the loop's iterable


_RESHAPING = frozenset({"concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "append", "pad",
                        "tile", "repeat", "expand_dims", "insert", "delete"})
_SIZED = frozenset({"arange", "zeros", "ones", "empty", "full", "eye", "linspace", "tri", "identity"})


def _fix_blocked(ctx: Context, loop: ast.For) -> str:
    """Why a ``lax.fori_loop``/``lax.scan`` rewrite of ``loop`` does not apply (a carry whose shape changes, items
    whose size depends on the iteration, a list of per-step outputs the function returns as a list), or ""."""
    index = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for stmt in loop.body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Slice) and any(
                    isinstance(m, ast.Name) and m.id in index for b in (n.lower, n.upper) if b is not None
                    for m in ast.walk(b)):
                return "each item has a different size (a slice bounded by the loop index)"
            if isinstance(n, ast.Call):
                q = ctx.resolve(n.func) or ""
                head, _, fn = q.rpartition(".")
                if fn in _SIZED and head in ("jax.numpy", "numpy") and any(
                        isinstance(m, ast.Name) and m.id in index for a in n.args for m in ast.walk(a)):
                    return "each item has a different size (an array sized by the loop index)"
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                name = n.targets[0].id
                v = n.value
                if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id == name \
                        and any(isinstance(m, ast.Slice) for m in ast.walk(v.slice)):
                    return f"the carry `{name}` changes shape every iteration"
                if isinstance(v, ast.Call) and (ctx.resolve(v.func) or "").rpartition(".")[2] in _RESHAPING and any(
                        isinstance(m, ast.Name) and m.id == name for a in v.args for m in ast.walk(a)):
                    return f"the carry `{name}` changes shape every iteration"
    for stmt in loop.body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and isinstance(n.slice, ast.Name) \
                    and n.slice.id in index and n.value.id not in index and _python_container(ctx, n.value):
                return f"it selects from the Python list `{n.value.id}` by the loop index (a traced index cannot)"
    appended = {n.func.value.id for stmt in loop.body for n in ast.walk(stmt)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                and isinstance(n.func.value, ast.Name)}
    fn = ctx.frame.node
    if appended and fn is not None and not isinstance(fn, ast.Lambda):
        for r in ast.walk(fn):
            if isinstance(r, ast.Return) and r.value is not None:
                out = r.value.elts if isinstance(r.value, ast.Tuple) else [r.value]
                hit = next((e.id for e in out if isinstance(e, ast.Name) and e.id in appended), None)
                if hit:
                    return f"it builds the list `{hit}` the function returns as a list"
    return ""


_REDUCTIONS = ("sum", "max", "min", "any", "all")


def _claim(ctx: Context, target: ast.AST, it: ast.AST, nested: list[ast.AST]) -> tuple[str, str, bool, set[str]] | None:
    """(what, trips, trip count unknown, loop-target names that hold traced values) for an unrolled
    iterable, or None when iterating over ``it`` does not unroll over traced data."""
    inner = it
    if isinstance(it, ast.Call) and ctx.resolve(it.func) in ("enumerate", "zip", "reversed") and it.args:
        inner = next((a for a in it.args if ctx.is_traced(a)), it.args[0])
        if ctx.resolve(it.func) == "zip" and any(not ctx.is_traced(a) and not (
                isinstance(a, ast.Call) and ctx.resolve(a.func) == "range") for a in it.args):
            return None  # `zip(keys, params.items())`, `zip(keys, leaves)`: as many trips as a Python sequence
    if ctx.is_traced(inner) and not (isinstance(inner, ast.Call) and ctx.resolve(inner.func) == "range"):
        if isinstance(inner, ast.Name) and _keys_of_mapping(ctx, inner.id, target):
            return None  # `for k in params: params[k]`: a dict's keys, as many as the structure has
        text = short(ctx, inner)
        unknown = not _certain_array(ctx, inner)
        size = _constructed_length(ctx, inner)
        if size is None and isinstance(inner, ast.Name):  # `offsets = jnp.arange(-r, r + 1)` then `for o in offsets`
            made = values_of(ctx, inner)
            if len(made) == 1 and made[0] is not None:
                size = _constructed_length(ctx, made[0])
        if size is not None:  # `for off in jnp.arange(2 * r + 1)`: the trip count is the constructor's static size
            count, n, data_sized = size
            if n is not None:
                if n < UNROLL_THRESHOLD:
                    return None  # a short array made here: a small unroll, as `range(3)`
                return f"traced array `{text}`", f"{n} iterations", False, _traced_targets(ctx, target, it)
            if not data_sized:  # a size from static arguments: how many is not known, nor the cost
                return f"`{text}`", f"{count} iterations", True, _traced_targets(ctx, target, it)
        return f"traced array `{text}`" if not unknown else f"`{text}`", f"{text}.shape[0] iterations", unknown, \
            _traced_targets(ctx, target, it)
    if isinstance(inner, ast.Call) and ctx.resolve(inner.func) == "range" and inner.args:
        bound = _range_bound(inner)
        made = _made_here_length(ctx, bound) if len(inner.args) == 1 else None
        if made is not None:  # `buf = jnp.zeros((n, d))` then `range(buf.shape[0])`: the constructor's count
            count, n, data_sized = made
            if n is not None:
                if n < UNROLL_THRESHOLD:
                    return None  # a short array made here: a small unroll, as `range(3)`
                return f"`{short(ctx, inner)}`", f"{n} iterations", False, set()
            if not data_sized:  # a length from static values: how many is not known, nor the cost
                return f"`{short(ctx, inner)}`", f"{count} iterations", True, set()
        if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" \
                and len(bound.args) == 1 and isinstance(bound.args[0], ast.Name) and ctx.frame.node is not None \
                and not isinstance(ctx.frame.node, ast.Lambda) and dict_like(ctx.frame.node, bound.args[0].id):
            return None  # `range(len(params))` of a dict: as many trips as it has keys
        if _shape_derived(bound, ctx):
            bounds = " * ".join(short(ctx, b) for b in [bound, *nested])
            return f"`{short(ctx, inner)}`", f"{bounds} iterations, fixed at trace time", False, set()
        n = _literal_trips(inner)
        if n is not None and n >= UNROLL_THRESHOLD:
            return f"`{short(ctx, inner)}`", f"{n} iterations", False, set()
        if any(isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "len" and m.args
               and ctx.is_traced(m.args[0]) and not _python_container(ctx, m.args[0]) for m in ast.walk(bound)):
            # `range(len(xs))` of a traced value that is not surely an array (a list of arrays, most likely):
            # as many trips as the list has items, which the source does not show
            return f"`{short(ctx, inner)}`", f"{short(ctx, bound)} iterations", True, set()
    return None


_LENGTH_ARG = {"arange": -1, "linspace": 2, "logspace": 2, "geomspace": 2}  # which argument sets the length
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full", "eye", "identity"})


def _constructed_length(ctx: Context, node: ast.AST) -> tuple[str, int | None, bool] | None:
    """(the count's text, its value when the source fixes it, whether it is an array's data size) of the leading
    length of an array a ``jnp``/``np`` constructor makes here: ``n`` of ``jnp.arange(n)``, ``stop - start`` of
    ``jnp.arange(start, stop)``, ``num`` of ``jnp.linspace``, the first entry of ``jnp.zeros((n, d))``; None when
    ``node`` is not such a call."""
    if not isinstance(node, ast.Call):
        return None
    q = ctx.resolve(node.func) or ""
    head, _, fn = q.rpartition(".")
    if head not in ("jax.numpy", "numpy") or not node.args:
        return None
    if fn == "arange":
        if len(node.args) == 1:
            parts = [node.args[0]]
        else:
            parts = [node.args[1], node.args[0]]
    elif fn in _LENGTH_ARG:
        i = _LENGTH_ARG[fn]
        kw = next((k.value for k in node.keywords if k.arg == "num"), None)
        one = kw if kw is not None else node.args[i] if len(node.args) > i else None
        if one is None:
            return None
        parts = [one]
    elif fn in _SHAPE_FIRST:
        shape = node.args[0]
        parts = [shape.elts[0] if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts else shape]
    else:
        return None
    values = [_count(ctx, p) for p in parts]
    n = None if None in values else values[0] - (values[1] if len(values) > 1 else 0)  # type: ignore[operator]
    text = short(ctx, parts[0]) if len(parts) == 1 else f"({short(ctx, parts[0])}) - ({short(ctx, parts[1])})"
    return text, n, any(_shape_derived(p, ctx) for p in parts)


def _made_here_length(ctx: Context, bound: ast.AST) -> tuple[str, int | None, bool] | None:
    """The leading length (as ``_constructed_length``) of the array a ``range`` bound ``x.shape[0]`` / ``len(x)``
    measures, when ``x`` is a local bound once to a ``jnp``/``np`` constructor here; else None."""
    arr = None
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape" \
            and isinstance(bound.slice, ast.Constant) and bound.slice.value == 0:
        arr = bound.value.value
    elif isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" \
            and len(bound.args) == 1:
        arr = bound.args[0]
    if not isinstance(arr, ast.Name) or ctx._local_frame(arr.id) is not ctx.frame:
        return None
    made = values_of(ctx, arr)
    if len(made) != 1 or made[0] is None:
        return None
    return _constructed_length(ctx, made[0])


def _count(ctx: Context, node: ast.AST) -> int | None:
    """The value of a count the source fixes: a literal, or arithmetic on module-level literals (``2 * R + 1``
    with ``R = 1``; ``arraysize``'s resolution, as for JS501's sizes); None when a name in it is local."""
    if any(isinstance(n, ast.Name) and ctx._local_frame(n.id) is not None for n in ast.walk(node)):
        return None  # a parameter or local of this function: its value is its caller's
    try:
        v = arraysize.resolve_literal(node, ctx.info.size_literals)
    except ValueError:
        return None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _certain_array(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` surely an array, not a tuple/list pytree of arrays? (A parameter only when the
    function uses it like an array; a local only when bound from jnp/lax calls or arithmetic.)"""
    if isinstance(node, ast.Name):
        f = ctx._local_frame(node.id)
        if f is None:
            return False
        if node.id in f.params and node.id not in f.bound:
            return used_as_array(ctx, node.id)
        return node.id in f.arrays
    if isinstance(node, ast.Call):
        q = ctx.resolve(node.func) or ""
        return q.startswith(ARRAY_NAMESPACES) or (isinstance(node.func, ast.Attribute)
                                                  and _certain_array(ctx, node.func.value))
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return ctx.is_traced(node)
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT", "real", "imag"):
        return _certain_array(ctx, node.value)
    return False


def _bare_param(ctx: Context, generators: list[ast.comprehension]) -> bool:
    for g in generators:
        it = g.iter
        if isinstance(it, ast.Call) and ctx.resolve(it.func) in ("enumerate", "zip", "reversed"):
            it = next((a for a in it.args if ctx.is_traced(a)), None)
        if isinstance(it, ast.Name) and it.id in ctx.frame.params:
            return True
    return False


def _range_bound(call: ast.Call) -> ast.AST:
    return call.args[-1] if len(call.args) == 1 else call.args[1]


def _shape_range(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` a ``for`` over ``range(<shape-derived bound>)``?"""
    it = node.iter if isinstance(node, ast.For) else None
    return isinstance(it, ast.Call) and ctx.resolve(it.func) == "range" and bool(it.args) \
        and _shape_derived(_range_bound(it), ctx)


def _nested_bounds(ctx: Context, node: ast.For) -> list[ast.AST]:
    """Bounds of ``range(shape...)`` loops nested directly in ``node``'s body (``for i ...: for j ...:``)."""
    out: list[ast.AST] = []
    if not _shape_range(ctx, node):
        return out
    cur: ast.AST = node
    while True:
        inner = next((s for s in cur.body if _shape_range(ctx, s)), None)  # type: ignore[attr-defined]
        if inner is None:
            return out
        out.append(_range_bound(inner.iter))  # type: ignore[attr-defined]
        cur = inner


def _inner_of_reported(ctx: Context, node: ast.For) -> bool:
    parent = ctx.parents[-1] if ctx.parents else None
    return _shape_range(ctx, node) and isinstance(parent, ast.For) and _shape_range(ctx, parent) \
        and node in parent.body and next(s for s in parent.body if _shape_range(ctx, s)) is node


def _traced_targets(ctx: Context, target: ast.AST, it: ast.AST) -> set[str]:
    """Names the loop binds to traced values (mirrors the visitor's loop binding)."""
    q = ctx.resolve(it.func) if isinstance(it, ast.Call) else None
    if q == "range":
        return set()
    if q in ("enumerate", "zip", "reversed") and it.args:  # type: ignore[attr-defined]
        args = it.args  # type: ignore[attr-defined]
        if q == "reversed":
            return _traced_targets(ctx, target, args[0])
        elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else None
        if q == "enumerate":
            return _traced_targets(ctx, elts[1], args[0]) if elts and len(elts) == 2 else set()
        if elts and len(elts) == len(args):
            return {n for e, a in zip(elts, args, strict=True) for n in _traced_targets(ctx, e, a)}
        return set()
    if not ctx.is_traced(it):
        return set()
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _shape_derived(node: ast.AST, ctx: Context) -> bool:
    """Is a ``range`` bound taken from an array's size (``x.shape[0]``, ``len(x)`` of a traced ``x``)?
    ``len(self.channels_list)`` or ``len(sys.link_parents)`` counts a static configuration instead, and
    ``len(x.shape)`` is the rank (``x.ndim``): one trip per axis, a handful, whose counter is a Python int an
    axis argument needs (``cumsum(axis=axis)``: a ``fori_loop`` counter there is a tracer and fails)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1 \
                and isinstance(n.args[0], ast.Attribute) and n.args[0].attr == "shape":
            continue  # `len(x.shape)`: the rank
        stack.extend(ast.iter_child_nodes(n))
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "size"):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args \
                and ctx.is_traced(n.args[0]) and not _python_container(ctx, n.args[0]) \
                and _certain_array(ctx, n.args[0]):  # `len(xs)` of a list of arrays counts items, not data
            return True
    return False


_SEQUENCE_CALLS = frozenset({"tuple", "list", "range", "sorted"})


def _python_container(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` a Python tuple/list (of tracers or of ints) on every binding that reaches here? Its length
    is a number of items fixed by the program (``len(window)`` after ``window = tuple(window)``, one per
    spatial dimension), not the size of an array's data."""
    if isinstance(node, ast.Name) and node.id in getattr(ctx._local_frame(node.id), "pytrees", ()):
        return True  # `Sequence[Array]` parameter, or inside `if isinstance(xs, (tuple, list)):`
    found = values_of(ctx, node) if isinstance(node, ast.Name) else [node]
    return bool(found) and all(_container_value(ctx, v, node) for v in found)


def _container_value(ctx: Context, v: ast.AST | None, name: ast.AST) -> bool:
    if isinstance(v, (ast.Tuple, ast.List, ast.ListComp)):
        return True
    if isinstance(v, ast.Call):
        return ctx.resolve(v.func) in _SEQUENCE_CALLS or ctx.resolve(v.func) in values.CONTAINER_TYPES
    if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Mult, ast.Add)):  # `(1,) * ndim`, `(0,) + axes`
        return _container_value(ctx, v.left, name) or _container_value(ctx, v.right, name)
    if isinstance(v, ast.IfExp):  # `w if isinstance(w, tuple) else tuple(w)`: the guarded branch is a tuple
        guard = v.test.operand if isinstance(v.test, ast.UnaryOp) and isinstance(v.test.op, ast.Not) else v.test
        negated = guard is not v.test
        narrowed = isinstance(guard, ast.Call) and isinstance(guard.func, ast.Name) and guard.func.id == "isinstance" \
            and len(guard.args) == 2 and ctx.resolve(guard.args[1]) in values.CONTAINER_TYPES
        sides = [(v.body, not negated), (v.orelse, negated)]
        return all((narrowed and inside and isinstance(side, ast.Name) and isinstance(guard.args[0], ast.Name)
                    and side.id == guard.args[0].id) or _container_value(ctx, side, name) for side, inside in sides)
    return False


def _keys_of_mapping(ctx: Context, name: str, target: ast.AST) -> bool:
    """Does iterating ``name`` iterate a dict's keys: the function uses ``name`` as a dict (``.items()``, a string
    key, ``in``), or indexes it by the loop's own element (``for k in d: d[k]``, which on an array would index
    by its rows' values)?"""
    fn = ctx.frame.node
    if fn is None or isinstance(fn, ast.Lambda):
        return False
    if dict_like(fn, name):
        return True
    keys = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name
               and isinstance(n.slice, ast.Name) and n.slice.id in keys for n in ast.walk(fn))


def _literal_trips(call: ast.Call) -> int | None:
    try:
        args = [ast.literal_eval(a) for a in call.args]
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if not all(isinstance(a, int) for a in args) or len(args) > 3:
        return None
    try:
        return len(range(*args))
    except (ValueError, OverflowError):
        return None


def _does_array_work(ctx: Context, body: list[ast.AST], targets: set[str] | frozenset[str] = frozenset()) -> bool:
    """Does ``body`` compute with traced values? ``targets``: loop variables that will hold traced
    values (the loop is checked before its target is bound)."""

    def traced(e: ast.AST) -> bool:
        return ctx.is_traced(e) or (bool(targets) and any(
            isinstance(m, ast.Name) and m.id in targets for m in ast.walk(e)))

    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call):
                q = ctx.resolve(n.func) or ""
                if q.startswith(ARRAY_NAMESPACES):
                    return True
                if isinstance(n.func, ast.Attribute) and traced(n.func.value):
                    return True
                if any(traced(a) for a in n.args):  # `y = f(y)`: a traced call per iteration
                    return True
            elif isinstance(n, (ast.BinOp, ast.Subscript)) and traced(n):
                return True
            elif isinstance(n, ast.AugAssign) and (traced(n.value) or traced(n.target)):
                return True
    return False
