"""JS208 static-arg-per-iteration."""

from __future__ import annotations

import ast

from .. import arraysize
from ..context import Context
from ..rule import Rule
from ..static_need import static_need
from ._static_args import jitted_target, message_via, report_at_declaration, static_arguments, via
from ._util import short

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_COUNTING = ("range", "tqdm.trange", "trange", "tqdm.auto.trange", "itertools.count", "count")
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_SHAPE_ATTRS = frozenset({"shape", "ndim", "dtype", "size"})
# A counter that takes fewer values than this, all written in the source (`for j in range(5)`), compiles the
# function once per value and no more (a sweep of settings, as JS202 treats a short literal unroll): info.
FEW_VALUES = 16


class StaticArgPerIteration(Rule):
    """A static argument of a jitted function fed a value that changes on every iteration of a loop.

    ## What it does
    Flags a call of a jitted function (decorated, or wrapped as ``g = jax.jit(f, ...)``, or
    ``self.step`` set to ``jax.jit(...)``) inside a ``for``/``while`` loop when an argument
    landing on one of its ``static_argnums``/``static_argnames`` changes from one iteration to the
    next: the counter of a ``range`` loop (or ``enumerate``'s index, ``trange``,
    ``itertools.count``), a name or attribute the loop's body rebinds from its own value
    (``alpha = alpha * decay``, ``mean = 0.9 * mean + 0.1 * m``, ``x = step(x)``), or one the body
    computes from those (``m = float(jnp.mean(x))``: running statistics), passed as is, converted by
    ``int``/``float``, or in arithmetic (``step + 1``). A value passed through ``%``, ``//``, a
    comparison, ``min`` or ``type`` takes few values and is not flagged, nor is an item of a collection the loop
    never rebinds (``task = TASKS[i % 3]``, ``random.choice(TASKS)``: a sweep over it), a toggled flag, a shape
    (``x.shape[0]``), or the call's own output passed back (``state = step(state)``: arrays). A jit bound in the calling function (``step_fn = jax.jit(step,
    static_argnames="t")``) and a project function that passes its parameter on to a jit's static
    position (``lint/wrappers.py``, across the linted modules) count as jitted calls too. Not flagged in
    a function that is itself traced: there the loop unrolls and the inner jit is inlined into the outer
    program (one compile in all; tests/test_lint_outer_trace.py). The fix goes where the position is
    declared static, so a decorator's ``static_argnums``/``static_argnames`` element is flagged too (once). A counter over fewer than 16 values that
    the source writes out (``for j in range(5)``, ``range(2 * N)`` with module-level literals, ``enumerate``
    of a list display; loops read together multiply) compiles once per value and then hits the cache: a
    bounded sweep of settings, said as an ``info`` with the count. The fix follows what the parameter is for:
    where the jitted def (one of this module's) uses it as a ``range`` bound, a NumPy size or an int parameter
    of jnp/lax (``values.HOST_SIZE_ARGS``, ``values.STATIC_INT_ARGS``), a tracer there fails, so it must stay
    static and the advice is fewer values (rounded or bucketed), not tracing it.

    ## Why is this bad?
    jit keys its cache on the static arguments' values: every new value is a new trace and a
    new compile. A step counter or an annealed coefficient passed as static compiles the step
    once per iteration (checked under real ``jax.jit``: one compile per value), and the cache
    grows without bound.

    ## Example
    ```python
    step_fn = jax.jit(step, static_argnames="t")
    for t in range(1000):
        x = step_fn(x, t=t)
    ```

    ## Use instead
    ```python
    step_fn = jax.jit(step)  # t traced: one compile
    for t in range(1000):
        x = step_fn(x, t=t)
    ```

    ## Fix safety
    No fix is offered: which values may be traced, or where the state should go, is the program's choice.
    """

    code = "JS208"
    name = "static-arg-per-iteration"
    message = ("static argument `{param}` of `{function}` gets `{value}`, which changes on every iteration of the "
               "loop at line {line}: jit compiles `{function}` again for each new value; pass it as a traced "
               "argument (drop it from the static arguments)")
    severity = "warning"
    confidence = "likely"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        loops = _enclosing_loops(ctx)
        if not loops or ctx.under_trace:
            return  # under an outer trace the loop unrolls and the inner jit is inlined: one compile in all
        call: ast.Call = node  # type: ignore[assignment]
        found = static_arguments(ctx, call)
        if found is None:
            return
        function, passed = found
        made = _assigned_by(ctx, call)
        for param, value in passed:
            if _key(value) in made:
                continue  # `state, m = p_step(state, batch)`: the jit's own output is arrays (unhashable: JS602's)
            loop = _varying(ctx, value, loops)
            if loop is not None:
                details = dict(param=param, function=function, value=short(ctx, value), line=loop.lineno)
                count = _few_values(ctx, value, loops)
                if count is not None:  # a sweep over values the source writes out: a bounded cost, said as info
                    msg = (f"static argument `{param}` of `{function}` gets `{details['value']}`, one of {count} values "
                           f"the loop at line {loop.lineno} writes out: jit compiles `{function}` once for each "
                           f"({count} compiles, then cached); fine for a sweep of settings")
                    ctx.report(self, value, msg, severity="info", count=count, **details)
                    return
                use = _structure_use(ctx, call, param, value)
                if use is not None:  # `range(p)`, `jnp.zeros(p)` in the jitted body: a tracer there fails
                    msg = (f"static argument `{param}` of `{function}` gets `{details['value']}`, which changes on "
                           f"every iteration of the loop at line {loop.lineno}: jit compiles `{function}` again for "
                           f"each new value; `{param}` must stay static (it is {use[0]} at {_at(use[1])}): "
                           "compile it for fewer values (round or bucket them)" + via(ctx, value))
                    ctx.report(self, value, msg, **details)
                    return
                ctx.report(self, value, message_via(self, ctx, value, **details), **details)
                report_at_declaration(  # the fix goes there: drop it from the static arguments
                    self, ctx, call, param, f"static argument `{param}` of `{function}` is given `{details['value']}` "
                    f"(line {call.lineno}), which changes on every iteration of the loop at line {loop.lineno}: jit "
                    f"compiles `{function}` again for each new value; drop it from the static arguments (pass it "
                    "traced)", **details)
                return


def _assigned_by(ctx: Context, call: ast.Call) -> set[str]:
    """What the statement holding ``call`` binds from it (``state, m = step(state, ...)``)."""
    parent = ctx.parents[-1] if ctx.parents else None
    if isinstance(parent, ast.Assign) and parent.value is call:
        return {k for tgt in parent.targets for k in _targets(tgt)}
    return set()


def _enclosing_loops(ctx: Context) -> list[ast.For | ast.AsyncFor | ast.While]:
    """The ``for``/``while`` loops of this function whose body holds the node, innermost first."""
    parents = ctx.parents
    out = []
    for k in range(len(parents) - 1, -1, -1):
        p = parents[k]
        if isinstance(p, _SCOPES) or isinstance(p, _COMPREHENSIONS):
            break
        if isinstance(p, (ast.For, ast.AsyncFor, ast.While)) and k + 1 < len(parents) and parents[k + 1] in p.body:
            out.append(p)
    return out


def _varying(ctx: Context, value: ast.expr, loops: list) -> ast.stmt | None:
    """The loop over which ``value`` takes a new value on every iteration, or None."""
    t = type(value)
    if t is ast.Call and type(value.func) is ast.Name and value.func.id in ("int", "float") \
            and len(value.args) == 1 and not value.keywords:
        return _varying(ctx, value.args[0], loops)
    if t is ast.BinOp and type(value.op) in _ARITH:
        left = _varying(ctx, value.left, loops)
        return left if left is not None else _varying(ctx, value.right, loops)
    if t is ast.UnaryOp and type(value.op) is ast.USub:
        return _varying(ctx, value.operand, loops)
    if t is ast.Name or (t is ast.Attribute and type(value.value) is ast.Name):
        for loop in loops:
            if t is ast.Name and _counter(ctx, loop, value.id):
                return loop
            if _key(value) in _carried(ctx, loop):
                return loop
    return None


def _at(where: int | str) -> str:
    return f"line {where}" if isinstance(where, int) else where


def _structure_use(ctx: Context, call: ast.Call, param: str, value: ast.expr) -> tuple[str, int | str] | None:
    """How the jitted def of ``call`` uses its parameter ``param`` where only a Python value works under jit,
    and the line (``lint/static_need.py``: a ``range`` bound, a NumPy size, an int parameter of jnp/lax, a
    Python ``if`` on it). Passed as a tracer there it fails, so dropping it from the static arguments is no
    fix. The def is this module's, or another linted module's jitted def (its summary carries the answer,
    with "file:line"). None when the def is not known or uses it otherwise."""
    target = jitted_target(ctx, call)
    fn = target[0] if target is not None else None
    if fn is None:
        key = ctx.table(via).get(value)
        return getattr(key, "needs", None)
    if param not in {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}:
        return None
    return static_need(fn, param, ctx.resolve)


def _few_values(ctx: Context, value: ast.expr, loops: list) -> int | None:
    """How many values ``value`` takes in all, when they are fewer than FEW_VALUES and the source fixes each
    (else None)? Known when every name
    in it that changes per iteration is the counter of a loop whose values the source writes out (``range(5)``,
    ``range(2 * N)`` with module literals, ``enumerate`` of a list display): the product of their trip counts.
    A value carried from iteration to iteration (``alpha = alpha * decay``) depends on where it started, so
    its count is not bounded by the source."""
    n = 1
    for key in _reads(value):
        for loop in loops:
            if "." not in key and _counter(ctx, loop, key):
                trips = _literal_trips(ctx, loop)
                if trips is None:
                    return None
                n *= trips
                break
            if key in _carried(ctx, loop):
                return None
    return n if n < FEW_VALUES else None


def _literal_trips(ctx: Context, loop) -> int | None:
    """How many times a counting loop runs when the source fixes it: ``range`` of literals (or module-level
    literals: ``arraysize``'s resolution, as JS202's), ``enumerate`` of a list or tuple display; else None."""
    call = loop.iter
    q = ctx.resolve(call.func) or ""
    if q == "enumerate":
        if call.args and type(call.args[0]) in (ast.List, ast.Tuple) and not any(
                type(e) is ast.Starred for e in call.args[0].elts):
            return len(call.args[0].elts)
        return None
    if q in ("itertools.count", "count") or not call.args or len(call.args) > 3 or call.keywords:
        return None
    if any(type(n) is ast.Name and ctx._local_frame(n.id) is not None for a in call.args for n in ast.walk(a)):
        return None  # a parameter or local of this function: its value is its caller's
    try:
        args = [arraysize.resolve_literal(a, ctx.info.size_literals) for a in call.args]
    except ValueError:
        return None
    if not all(type(a) is int for a in args):
        return None
    try:
        return len(range(*args))
    except (ValueError, OverflowError):
        return None


def _key(node: ast.AST) -> str | None:
    """``x`` or ``obj.attr`` as one string (what the loop's dataflow tracks), else None."""
    if type(node) is ast.Name:
        return node.id  # type: ignore[attr-defined]
    if type(node) is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
        return f"{node.value.id}.{node.attr}"  # type: ignore[attr-defined]
    return None


def _targets(target: ast.AST) -> list[str]:
    if type(target) in (ast.Tuple, ast.List):
        return [k for e in target.elts for k in _targets(e)]  # type: ignore[attr-defined]
    if type(target) is ast.Starred:
        return _targets(target.value)  # type: ignore[attr-defined]
    k = _key(target)
    return [k] if k is not None else []


def _reads(expr: ast.AST) -> set[str]:
    """The names and ``obj.attr`` an expression reads (outside the lambdas it makes)."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Lambda or (t is ast.Attribute and n.attr in _SHAPE_ATTRS) or (  # type: ignore[attr-defined]
                t is ast.Call and type(n.func) is ast.Name and n.func.id == "len"):  # type: ignore[attr-defined]
            continue  # `x.shape[0]`, `len(xs)` of loop state: the same shape every step (a shape change is JW405's)
        if t is ast.Name:
            out.add(n.id)  # type: ignore[attr-defined]
        elif t is ast.Attribute and type(n.value) is ast.Name:  # type: ignore[attr-defined]
            out.add(f"{n.value.id}.{n.attr}")  # type: ignore[attr-defined]
        stack.extend(ast.iter_child_nodes(n))
    return out


def _carried(ctx: Context, loop) -> frozenset[str]:
    """The names and attributes that take a new value on every iteration of ``loop``: the loop's model of
    what a step computes. A binding in the body whose value reads the bound name itself, directly or through
    other bindings of the body (``new = update(state)``, ``state = new``), carries state from one iteration
    to the next (``alpha = alpha * decay``, ``x = step(x)``, ``mean = 0.9 * mean + 0.1 * m``);
    the counter of a counting loop changes by definition; and whatever the body computes from either
    (``alpha = float(jnp.mean(x))`` after ``x = step(x)``) changes with them (a fixed point). A value bound
    from constants or from names the loop never rebinds (``k = 3``, ``lr = cfg.lr``) stays the same, and the
    element of a ``for`` over a collection is not a root (``for lr in (0.1, 0.01)``: a sweep of settings)."""
    cache = ctx.table(_carried)
    got = cache.get(loop)
    if got is not None:
        return got
    binds: list[tuple[list[str], set[str]]] = []
    rebound = _rebound(loop)
    stack: list[ast.AST] = list(loop.body)
    while stack:
        n = stack.pop()
        t = type(n)
        if t in _SCOPES:
            continue  # a def's bindings are its own
        stack.extend(ast.iter_child_nodes(n))
        if t in (ast.Assign, ast.AnnAssign) and n.value is not None and (  # type: ignore[attr-defined]
                _few(n.value) or _selected(ctx, n.value, rebound)):  # type: ignore[attr-defined]
            continue  # `flag = not flag`, `i = (i + 1) % k`, `task = TASKS[i % 3]`: a few values, compiled once each
        if t is ast.Assign:
            keys = [k for tgt in n.targets for k in _targets(tgt)]  # type: ignore[attr-defined]
            if keys:
                binds.append((keys, _reads(n.value)))  # type: ignore[attr-defined]
        elif t is ast.AugAssign and type(n.op) in _ARITH:  # type: ignore[attr-defined]
            k = _key(n.target)  # type: ignore[attr-defined]
            if k is not None:
                binds.append(([k], _reads(n.value) | {k}))  # type: ignore[attr-defined]
        elif t is ast.AnnAssign and n.value is not None:  # type: ignore[attr-defined]
            k = _key(n.target)  # type: ignore[attr-defined]
            if k is not None:
                binds.append(([k], _reads(n.value)))  # type: ignore[attr-defined]
    varying: set[str] = set()
    if isinstance(loop, (ast.For, ast.AsyncFor)) and type(loop.target) is ast.Name \
            and _counter(ctx, loop, loop.target.id):
        varying.add(loop.target.id)
    elif isinstance(loop, (ast.For, ast.AsyncFor)) and type(loop.target) is ast.Tuple and loop.target.elts \
            and type(loop.target.elts[0]) is ast.Name and _counter(ctx, loop, loop.target.elts[0].id):
        varying.add(loop.target.elts[0].id)
    # A binding that reads what it binds carries it from one iteration to the next, directly (`x = step(x)`) or
    # through others (`new = update(state)`, then `state = new`): the names on a cycle of the loop's bindings.
    deps: dict[str, set[str]] = {}
    for keys, reads in binds:
        for k in keys:
            deps.setdefault(k, set()).update(reads)
    for start in deps:
        seen, stack = set(), list(deps[start] & deps.keys())
        while stack:
            k = stack.pop()
            if k == start:
                varying.add(start)
                break
            if k not in seen:
                seen.add(k)
                stack.extend(deps[k] & deps.keys())
    changed = True
    while changed:
        changed = False
        for keys, reads in binds:
            if reads & varying and not set(keys) <= varying:
                varying.update(keys)
                changed = True
    got = cache[loop] = frozenset(varying)
    return got


def _rebound(loop) -> set[str]:
    """The names and ``obj.attr`` the loop's body binds (outside the defs it makes), and its own target."""
    out = set(_targets(loop.target)) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    stack: list[ast.AST] = list(loop.body)
    while stack:
        n = stack.pop()
        if type(n) in _SCOPES:
            continue
        stack.extend(ast.iter_child_nodes(n))
        if type(n) is ast.Assign:
            out.update(k for tgt in n.targets for k in _targets(tgt))  # type: ignore[attr-defined]
        elif type(n) in (ast.AugAssign, ast.AnnAssign, ast.NamedExpr):
            out.update(_targets(n.target))  # type: ignore[attr-defined]
        elif type(n) in (ast.For, ast.AsyncFor, ast.comprehension):
            out.update(_targets(n.target))  # type: ignore[attr-defined]
    return out


_CHOICE = frozenset({"random.choice", "numpy.random.choice"})


def _selected(ctx: Context, expr: ast.AST, rebound: set[str]) -> bool:
    """Is ``expr`` an item of a collection the loop never rebinds (``TASKS[i % len(TASKS)]``, ``modes[i]``,
    ``random.choice(TASKS)``)? It takes at most as many values as the collection holds, each compiled once and
    then cached: a sweep over the collection, as ``for task in TASKS`` is."""
    t = type(expr)
    if t is ast.Subscript:
        box = expr.value  # type: ignore[attr-defined]
    elif t is ast.Call and (ctx.resolve(expr.func) or "") in _CHOICE and len(expr.args) == 1:  # type: ignore[attr-defined]
        box = expr.args[0]  # type: ignore[attr-defined]
    else:
        return False
    k = _key(box)
    return k is not None and k not in rebound and k.split(".", 1)[0] not in rebound


def _few(expr: ast.AST) -> bool:
    """Does ``expr`` take only a few values whatever it reads (a bool, a remainder, a choice of constants, the
    class of an object: ``type(x)``, ``x.__class__``)?"""
    t = type(expr)
    if t in (ast.Compare, ast.BoolOp, ast.Constant):
        return True
    if t is ast.Attribute and expr.attr == "__class__":  # type: ignore[attr-defined]
        return True
    if t is ast.UnaryOp:
        return type(expr.op) is ast.Not  # type: ignore[attr-defined]
    if t is ast.BinOp:
        return type(expr.op) in (ast.Mod, ast.BitAnd)  # type: ignore[attr-defined]
    if t is ast.IfExp:
        return _few(expr.body) and _few(expr.orelse)  # type: ignore[attr-defined]
    if t is ast.Call and type(expr.func) is ast.Name:  # type: ignore[attr-defined]
        return expr.func.id in ("bool", "min", "max", "type")  # type: ignore[attr-defined]
    return False


def _counter(ctx: Context, loop, name: str) -> bool:
    """Is ``name`` the counter of a counting ``for`` loop (``range``, ``enumerate``'s index, ``trange``)?"""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
        return False
    q = ctx.resolve(loop.iter.func) or ""
    tgt = loop.target
    if q in _COUNTING or q.endswith(".trange"):
        return type(tgt) is ast.Name and tgt.id == name
    if q == "enumerate" and type(tgt) is ast.Tuple and tgt.elts:
        first = tgt.elts[0]
        return type(first) is ast.Name and first.id == name
    return False

