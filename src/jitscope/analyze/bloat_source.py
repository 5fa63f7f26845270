"""Reading the user's source for the bloat detector: loops, trip counts, reduction rewrites.

``analyze.bloat`` finds runs of repeated equations; this module says what in the source
built them. Files are parsed once with ``ast`` (via ``linecache``) and cached.
"""

from __future__ import annotations

import ast
import linecache

BUILTIN_REDUCTIONS = {"sum": "jnp.sum", "max": "jnp.max", "min": "jnp.min", "any": "jnp.any",
                      "all": "jnp.all", "reduce": "a jnp reduction or lax.reduce"}

_AST_CACHE: dict[str, ast.AST | None] = {}


def _tree(filename: str) -> ast.AST | None:
    if filename not in _AST_CACHE:
        text = "".join(linecache.getlines(filename))
        try:
            _AST_CACHE[filename] = ast.parse(text) if text else None
        except SyntaxError:
            _AST_CACHE[filename] = None
    return _AST_CACHE[filename]


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _enclosing_loop(filename: str, lo: int, hi: int) -> ast.AST | None:
    tree = _tree(filename)
    best = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, _LOOPS) and node.lineno <= lo and (node.end_lineno or node.lineno) >= hi:
            if best is None or (node.lineno, -(node.end_lineno or 0)) > (best.lineno, -(best.end_lineno or 0)):
                best = node
    return best


_PARENTS: dict[str, dict[int, ast.AST]] = {}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def _parents(filename: str) -> dict[int, ast.AST]:
    if filename not in _PARENTS:
        tree = _tree(filename)
        _PARENTS[filename] = {id(child): node for node in ast.walk(tree) if tree is not None
                              for child in ast.iter_child_nodes(node)}
    return _PARENTS[filename]


def _int_value(expr: ast.AST, tree: ast.AST | None) -> int | None:
    """An int literal, or a module-level name assigned exactly one int literal."""
    try:
        value = ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = None
        if isinstance(expr, ast.Name) and isinstance(tree, ast.Module):
            found = [ast.literal_eval(st.value) for st in tree.body
                     if isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant)
                     and any(isinstance(t, ast.Name) and t.id == expr.id for t in st.targets)]
            value = found[0] if len(found) == 1 else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _iter_len(it: ast.AST, tree: ast.AST | None) -> int | None:
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
            and not it.keywords and 1 <= len(it.args) <= 3:
        vals = [_int_value(a, tree) for a in it.args]
        if any(v is None for v in vals) or (len(vals) == 3 and vals[2] == 0):
            return None
        return len(range(*vals))  # type: ignore[arg-type]
    if isinstance(it, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(e, ast.Starred) for e in it.elts):
        return len(it.elts)
    if isinstance(it, ast.Constant) and isinstance(it.value, (str, bytes)):
        return len(it.value)
    return None


def _trip_count(node: ast.AST, tree: ast.AST | None) -> int | None:
    """Iterations of a ``for`` over a literal/derivable iterable, or of a comprehension's generators."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _iter_len(node.iter, tree)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        n = 1
        for gen in node.generators:
            k = None if gen.ifs else _iter_len(gen.iter, tree)
            if k is None:
                return None
            n *= k
        return n
    return None


def _nested_loops(filename: str, inner: ast.AST, repeats: int) -> tuple[ast.AST, str] | None:
    """(outermost loop, "nested loops lines a-b (6x6)") when ``repeats`` exceeds ``inner``'s trip count.

    Climbs to the loops enclosing ``inner`` in the same function until their trip counts
    multiply up to ``repeats`` (an unknown count, shown as ``?``, stops the climb).
    """
    tree = _tree(filename)
    trip = _trip_count(inner, tree)
    if trip is None or repeats <= trip:
        return None
    parents = _parents(filename)
    chain, trips, product, node = [inner], [trip], trip, parents.get(id(inner))
    while node is not None and not isinstance(node, _SCOPES) and product < repeats:
        if isinstance(node, _LOOPS):
            t = _trip_count(node, tree)
            chain.append(node)
            trips.append(t)
            if t is None:
                break
            product *= t
        node = parents.get(id(node))
    if len(chain) == 1:
        return None
    outer = chain[-1]
    counts = "x".join("?" if t is None else str(t) for t in reversed(trips))
    return outer, f"nested loops lines {outer.lineno}-{inner.lineno} ({counts})"


_SIMPLE = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call)


def _reduction_text(builtin: str, node: ast.AST | None, filename: str) -> str:
    """``jnp.sum(<arg>, axis=0)`` (``+ <start>``) for ``sum(arg[, start])``; "" when unsure.

    Builtin ``sum``/``max``/... iterate the first axis, so the replacement reduces ``axis=0`` only;
    ``sum``'s second positional argument (or ``start=``) is its start value, not an axis. Other
    keywords (``key=``, ``default=``), starred or extra arguments: no replacement text.
    """
    if builtin not in BUILTIN_REDUCTIONS or builtin == "reduce" or not isinstance(node, ast.Call) or not node.args:
        return ""
    if any(isinstance(a, ast.Starred) for a in node.args):
        return ""
    start: ast.AST | None = None
    if builtin == "sum" and len(node.args) == 2 and not node.keywords:
        start = node.args[1]
    elif builtin == "sum" and len(node.args) == 1 and [k.arg for k in node.keywords] == ["start"]:
        start = node.keywords[0].value
    elif len(node.args) != 1 or node.keywords:
        return ""
    text = "".join(linecache.getlines(filename))
    arg = ast.get_source_segment(text, node.args[0])
    if not arg:
        return ""
    out = f"{BUILTIN_REDUCTIONS[builtin]}({arg}, axis=0)"
    if start is not None:
        seg = ast.get_source_segment(text, start)
        if not seg:
            return ""
        out += f" + {seg}" if isinstance(start, _SIMPLE) else f" + ({seg})"
    return out
