"""Reading the user's source for watch's fixes: what a static argument does, and the code change.

Three questions, each answered from the file (via ``linecache``) or not at all:

* ``static_uses``: does a static argument set a shape (``jnp.ones(window)``, ``x[:n]``,
  ``x.reshape(n, -1)``, a ``jax.random`` shape)? Then each value is its own program and
  making it traced fails under ``jax.jit`` (checked against real JAX in the tests): the
  recompiles are expected, not something to fix. A ``for i in range(n)`` loop over it can
  become ``lax.fori_loop`` with a traced ``n``.
* ``hoisted_jit``: a ``jax.jit(...)`` built inside a loop and called there: the loop with the
  jit hoisted above it.
* ``fori_loop_form`` / ``drop_static``: the loop over a static bound as ``lax.fori_loop``, and
  the ``jax.jit`` call or decorator without that static argument; ``add_static``: with one more
  (the fix of a tracer error on a configuration value).

Each returns None when the source is missing or not the simple shape it knows: the fix is
then given in words only.
"""

from __future__ import annotations

import ast
import linecache
import re
import textwrap

from ..model import Location

# Calls whose listed positional arguments / keywords are shapes or sizes: a traced value there
# raises (TypeError / ConcretizationTypeError / TracerIntegerConversionError) under jax.jit.
_SHAPE_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "ones": ((0,), ("shape",)), "zeros": ((0,), ("shape",)), "empty": ((0,), ("shape",)),
    "full": ((0,), ("shape",)), "eye": ((0, 1), ("N", "M")), "identity": ((0,), ("n",)),
    "arange": ((0, 1, 2), ("start", "stop", "step")), "linspace": ((2,), ("num",)),
    "tri": ((0, 1), ("N", "M")), "broadcast_to": ((1,), ("shape",)), "tile": ((1,), ("reps",)),
    "split": ((1,), ("indices_or_sections", "num")), "array_split": ((1,), ("indices_or_sections",)),
    "one_hot": ((1,), ("num_classes",)), "top_k": ((1,), ("k",)), "pad": ((1,), ("pad_width",)),
    "dynamic_slice": ((2,), ("slice_sizes",)), "dynamic_slice_in_dim": ((2,), ("slice_size",)),
    "zeros_like": ((), ("shape",)), "ones_like": ((), ("shape",)), "full_like": ((), ("shape",)),
    "normal": ((1,), ("shape",)), "uniform": ((1,), ("shape",)), "randint": ((1,), ("shape",)),
    "bernoulli": ((2,), ("shape",)), "choice": ((1, 2), ("shape",)), "permutation": ((), ()),
    "categorical": ((), ("shape",)), "truncated_normal": ((3,), ("shape",)),
}
_TREES: dict[str, ast.Module | None] = {}


def _tree(filename: str) -> ast.Module | None:
    if filename not in _TREES:
        text = "".join(linecache.getlines(filename))
        try:
            _TREES[filename] = ast.parse(text) if text else None
        except (SyntaxError, ValueError):
            _TREES[filename] = None
    return _TREES[filename]


def _source(filename: str) -> str:
    return "".join(linecache.getlines(filename))


def function_node(definition: Location) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
    """The ``def`` (its decorators included) or ``lambda`` that starts at ``definition``'s line."""
    tree = _tree(definition.file)
    best = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if definition.line in (first, node.lineno):
                return node
        elif isinstance(node, ast.Lambda) and node.lineno == definition.line and best is None:
            best = node
    return best


def _names_in(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _shape_spots(body: list, names: set[str], claimed: set[int]):  # type: ignore[no-untyped-def]
    """(node, expression) where one of ``names`` sets a shape or size; marks the expressions claimed."""
    for node in (n for st in body for n in ast.walk(st)):
        spots: list[ast.AST] = []
        if isinstance(node, ast.Call):
            callee = _callee(node)
            if callee == "reshape":  # x.reshape(n, -1) or jnp.reshape(x, (n, -1))
                module_form = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id in ("jnp", "np", "numpy", "lax")
                spots = list(node.args[1:] if module_form else node.args)
                spots += [k.value for k in node.keywords if k.arg in ("shape", "newshape")]
            elif callee in _SHAPE_ARGS:
                pos, kws = _SHAPE_ARGS[callee]
                spots = [a for i, a in enumerate(node.args) if i in pos]
                spots += [k.value for k in node.keywords if k.arg in kws]
        elif isinstance(node, ast.Slice):
            spots = [p for p in (node.lower, node.upper, node.step) if p is not None]
        for spot in spots:
            if _names_in(spot) & names:
                claimed |= {id(n) for n in ast.walk(spot)}
                yield node, spot


def static_uses(definition: Location, name: str) -> dict[str, Location]:
    """How the parameter ``name`` of the function at ``definition`` is used, by kind.

    ``shape``: it sets a shape or size (a traced value there fails); ``loop``: it is the bound of a
    Python ``for ... in range(...)``; ``other``: anything else. Each kind maps to its first line.
    Names assigned from it (``shape = (n, 3)``) count as it. Empty when the source is unknown.
    """
    fn = function_node(definition)
    if fn is None:
        return {}
    derived = {name}
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    for _ in range(3):  # names assigned from it, a few levels deep
        for node in (n for st in body for n in ast.walk(st)):
            if isinstance(node, ast.Assign) and _names_in(node.value) & derived:
                derived |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    out: dict[str, Location] = {}

    def mark(kind: str, node: ast.AST) -> None:
        out.setdefault(kind, Location(definition.file, getattr(node, "lineno", definition.line)))

    claimed: set[int] = set()
    for node, _ in _shape_spots(body, derived, claimed):
        mark("shape", node)
    for node in (n for st in body for n in ast.walk(st)):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and _callee(node.iter) == "range" \
                and _names_in(node.iter) & derived:
            claimed |= {id(n) for n in ast.walk(node.iter)}
            # A loop whose counter sets a shape (x[:i]) cannot become lax.fori_loop (its i is traced).
            counter = {node.target.id} if isinstance(node.target, ast.Name) else set()
            mark("shape" if next(_shape_spots(node.body, counter, set()), None) else "loop", node)
        elif isinstance(node, ast.Call) and _callee(node) == "range" and _names_in(node) & derived \
                and id(node) not in claimed:
            mark("shape", node)  # range(n) in a comprehension: a traced n cannot be a Python count
            claimed |= {id(n) for n in ast.walk(node)}
    for node in (n for st in body for n in ast.walk(st)):
        if isinstance(node, ast.Name) and node.id in derived and id(node) not in claimed \
                and isinstance(node.ctx, ast.Load):
            mark("other", node)
    return out


def _loop_around(tree: ast.Module, line: int) -> ast.For | ast.While | None:
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While)) and node.lineno < line <= (node.end_lineno or 0):
            if best is None or node.lineno > best.lineno:
                best = node
    return best


def _is_jit(call: ast.AST) -> bool:
    return isinstance(call, ast.Call) and _callee(call) in ("jit", "filter_jit")


def _line_indent(filename: str, line: int) -> str:
    text = linecache.getline(filename, line)
    return text[: len(text) - len(text.lstrip())]


def hoisted_jit(call_site: Location, name: str = "jitted") -> tuple[Location, str] | None:
    """``jax.jit(f)(x)`` called inside a loop at ``call_site``: (the lines from the loop header
    to the call, the same lines with the jit built once above the loop). None when the jit is not
    built on that line, the loop is long, or the jitted expression uses names the loop assigns."""
    tree = _tree(call_site.file)
    if tree is None:
        return None
    loop = _loop_around(tree, call_site.line)
    if loop is None or call_site.line - loop.lineno > 12:
        return None
    jit_call = next((n.func for n in ast.walk(loop) if isinstance(n, ast.Call) and n.lineno == call_site.line
                     and _is_jit(n.func)), None)
    if jit_call is None:
        return None
    assigned = {t.id for n in ast.walk(loop) for t in ast.walk(n)
                if isinstance(n, (ast.Assign, ast.For, ast.AugAssign)) and isinstance(t, ast.Name)
                and isinstance(t.ctx, ast.Store)}
    if _names_in(jit_call) & assigned:
        return None  # the jitted function closes over a loop variable: hoisting changes it
    src = _source(call_site.file)
    jit_text = ast.get_source_segment(src, jit_call)
    if not jit_text or "\n" in jit_text:
        return None
    indent = _line_indent(call_site.file, loop.lineno)
    lines = [linecache.getline(call_site.file, i).rstrip("\n") for i in range(loop.lineno, call_site.line + 1)]
    lines[-1] = lines[-1].replace(jit_text, name, 1)
    new = "\n".join([f"{indent}{name} = {jit_text}  # built once, reused by every iteration", *lines])
    return Location(call_site.file, loop.lineno, end_line=call_site.line), new


def fori_loop_form(definition: Location, name: str) -> tuple[Location, str] | None:
    """The ``for i in range(name)`` loop of the function at ``definition`` as ``lax.fori_loop``,
    carrying the names the body reassigns. None for a body with break/continue/return/yield."""
    fn = function_node(definition)
    if fn is None or isinstance(fn, ast.Lambda):
        return None
    loop = next((n for n in ast.walk(fn) if isinstance(n, ast.For) and isinstance(n.iter, ast.Call)
                 and _callee(n.iter) == "range" and name in _names_in(n.iter)
                 and isinstance(n.target, ast.Name) and not n.orelse), None)
    if loop is None or any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom))
                           for n in ast.walk(loop)):
        return None
    src = _source(definition.file)
    rargs = [ast.get_source_segment(src, a) or "" for a in loop.iter.args]  # type: ignore[attr-defined]
    if len(rargs) not in (1, 2) or not all(rargs):
        return None
    lo, hi = ("0", rargs[0]) if len(rargs) == 1 else (rargs[0], rargs[1])
    carry = list(dict.fromkeys(t.id for st in loop.body for n in ast.walk(st)
                               for t in ([n.target] if isinstance(n, ast.AugAssign) else getattr(n, "targets", []))
                               if isinstance(t, ast.Name)))
    if not carry:
        return None
    indent = _line_indent(definition.file, loop.lineno)
    body_lines = [linecache.getline(definition.file, i).rstrip("\n")
                  for i in range(loop.body[0].lineno, (loop.end_lineno or loop.lineno) + 1)]
    body = textwrap.indent(textwrap.dedent("\n".join(body_lines)), indent + "    ")
    c = carry[0] if len(carry) == 1 else "(" + ", ".join(carry) + ")"
    target = loop.target.id  # type: ignore[union-attr]
    new = "\n".join([f"{indent}def body({target}, {c}):", body, f"{indent}    return {c}",
                     f"{indent}{c} = jax.lax.fori_loop({lo}, {hi}, body, {c})"])
    return Location(definition.file, loop.lineno, end_line=loop.end_lineno), new


def drop_static(definition: Location, names: list[str]) -> tuple[Location, str] | None:
    """The ``jax.jit(..., static_argnames=/static_argnums=...)`` call or decorator that makes ``names``
    static, rewritten without them (the line as it would read)."""
    fn = function_node(definition)
    tree = _tree(definition.file)
    if fn is None or tree is None:
        return None
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    position = {n: i for i, n in enumerate(params)}
    fname = getattr(fn, "name", None)
    candidates = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not any(k.arg in ("static_argnums", "static_argnames")
                                                     for k in node.keywords):
            continue
        if _is_jit(node) and node.args and (node.args[0] is fn or (
                fname and isinstance(node.args[0], ast.Name) and node.args[0].id == fname)):
            candidates.append(node)
        elif _callee(node) == "partial" and node.args and _callee_name(node.args[0]) in ("jit", "filter_jit") \
                and not isinstance(fn, ast.Lambda) and node in fn.decorator_list:
            candidates.append(node)
    if len(candidates) != 1:
        return None
    call = candidates[0]
    src = _source(definition.file)
    old = ast.get_source_segment(src, call)
    if not old or "\n" in old:
        return None
    keywords = []
    for k in call.keywords:
        text = ast.get_source_segment(src, k) or ""
        if k.arg in ("static_argnums", "static_argnames"):
            try:
                value = ast.literal_eval(k.value)
            except ValueError:
                return None
            items = list(value) if isinstance(value, (tuple, list)) else [value]
            drop = set(names) if k.arg == "static_argnames" else {position[n] for n in names if n in position}
            kept = [v for v in items if v not in drop]
            if kept == items:
                keywords.append(text)
            elif kept:
                keywords.append(f"{k.arg}={tuple(kept)!r}" if len(kept) > 1 else f"{k.arg}={kept[0]!r}")
            continue
        keywords.append(text)
    args = [ast.get_source_segment(src, a) or "" for a in call.args]
    head = ast.get_source_segment(src, call.func) or ""
    new_call = f"{head}({', '.join(args + keywords)})"
    if _callee(call) == "partial" and len(args) == 1 and not keywords:
        new_call = args[0]  # @partial(jax.jit) -> @jax.jit
    if new_call == old:
        return None
    line = linecache.getline(definition.file, call.lineno).rstrip("\n")
    return Location(definition.file, call.lineno, end_line=call.lineno), line.replace(old, new_call, 1)


def _callee_name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def static_to_traced(definition: Location, names: list[str]) -> tuple[Location, str] | None:
    """The function at ``definition`` with ``names`` no longer static: the jit line without them and,
    where one of them bounds a ``for ... in range`` loop, the loop as ``lax.fori_loop``; a short
    function is shown whole, else only the jit line."""
    drop = drop_static(definition, names)
    loop = next((c for n in names if "loop" in static_uses(definition, n)
                 for c in [fori_loop_form(definition, n)] if c), None)
    fn = function_node(definition)
    if drop is None or loop is None or fn is None:
        return drop
    first = min([fn.lineno, *(d.lineno for d in getattr(fn, "decorator_list", []))])
    last = fn.end_lineno or fn.lineno
    if last - first > 25 or not first <= drop[0].line < loop[0].line:
        return drop
    lines = {i: linecache.getline(definition.file, i).rstrip("\n") for i in range(first, last + 1)}
    out = []
    for i in range(first, last + 1):
        if i == drop[0].line:
            out.append(drop[1])
        elif i == loop[0].line:
            out.append(loop[1])
        elif not (loop[0].line < i <= (loop[0].end_line or i)):
            out.append(lines[i])
    return Location(definition.file, first, end_line=last), "\n".join(out)


def _enclosing_function(loc: Location) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    tree = _tree(loc.file)
    best = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno <= loc.line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno > best.lineno:
                best = node
    return best


def add_static(loc: Location, name: str) -> tuple[Location, str] | None:
    """The jit of the function around ``loc`` with ``name`` added to ``static_argnames``: the
    ``@jax.jit`` / ``@partial(jax.jit, ...)`` decorator, or a one-line ``jax.jit(f, ...)`` call of it."""
    fn = _enclosing_function(loc)
    tree = _tree(loc.file)
    if fn is None or tree is None or name not in [a.arg for a in (*fn.args.posonlyargs, *fn.args.args,
                                                                   *fn.args.kwonlyargs)]:
        return None
    src = _source(loc.file)
    target = None
    for dec in fn.decorator_list:
        if _callee_name(dec) == "jit" or (isinstance(dec, ast.Call) and (_is_jit(dec) or (
                _callee(dec) == "partial" and dec.args and _callee_name(dec.args[0]) == "jit"))):
            target = dec
    if target is None:
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _callee(n) == "jit" and n.args
                 and isinstance(n.args[0], ast.Name) and n.args[0].id == fn.name]
        if len(calls) != 1:
            return None
        target = calls[0]
    old = ast.get_source_segment(src, target)
    if not old or "\n" in old:
        return None
    if isinstance(target, ast.Call):
        kw = next((k for k in target.keywords if k.arg == "static_argnames"), None)
        if kw is not None:
            try:
                value = ast.literal_eval(kw.value)
            except ValueError:
                return None
            names = [value] if isinstance(value, str) else list(value)
            if name in names:
                return None
            kw_old = ast.get_source_segment(src, kw) or ""
            new = old.replace(kw_old, f"static_argnames={tuple([*names, name])!r}", 1)
        else:
            new = old[:-1] + f", static_argnames=({name!r},))"
    else:  # a bare @jax.jit decorator
        head = ast.get_source_segment(src, target) or "jax.jit"
        part = "partial" if re.search(r"^from functools import .*\bpartial\b", src, re.M) else "functools.partial"
        new = f"{part}({head}, static_argnames=({name!r},))"
    line = linecache.getline(loc.file, target.lineno).rstrip("\n")
    return Location(loc.file, target.lineno, end_line=target.lineno), line.replace(old, new, 1)
