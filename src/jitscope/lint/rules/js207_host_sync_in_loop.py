"""JS207 host-sync-in-loop."""

from __future__ import annotations

import ast

from ..context import STATIC_ATTRS, STATIC_CALLS, Context
from ..rule import Rule
from ..scope import JIT_LIKE
from ._scan import mentions_jit, own_statements, statement_bindings
from ._util import in_test_file, short

_TO_PYTHON = frozenset({"float", "int", "bool", "abs", "round", "complex"})


class HostSyncInLoop(Rule):
    """The result of a jitted call tested by a Python ``if``/``while`` inside a loop.

    ## What it does
    Outside traced code, flags the test of an ``if`` inside a loop, or of a ``while`` loop,
    when it reads the value of a jitted function's result: a call of a jitted function
    (decorated, or bound with ``g = jax.jit(f)``) or a name bound in the same function only
    to such results (``loss = step(x)``; ``params, loss = step(params, x)``). Static
    properties (``out.shape``, ``out.ndim``, ``len(out)``, ``out is None``) are not values
    and are not flagged. Test files are skipped: a test's loop runs over cases and needs each
    value on the host to assert on it.

    A test that decides whether the loop goes on (a ``while`` condition, an ``if`` whose block
    ``break``s, ``return``s or ``raise``s: a convergence test, an early stop, a check) is reported
    at ``info``: the next step cannot be dispatched before the value is known, so the sync is the
    loop's design, and the alternatives change it (stopping up to N steps late, or the whole loop
    as ``lax.while_loop``). A test that only guards work the loop does not wait for (logging,
    saving, printing) is a ``warning``: reading it every N steps changes nothing else.

    ## Why is this bad?
    A jitted call returns at once with a device array that is still being computed (JAX
    dispatches asynchronously). Python's ``if`` needs a concrete bool, so it blocks until the
    device finishes and copies the value to the host: a host sync on every iteration, which
    stops the next step from being queued while this one runs.

    ## Example
    ```python
    for batch in data:
        params, loss = step(params, batch)
        if loss < 1e-3:
            break
    ```

    ## Use instead
    ```python
    for i, batch in enumerate(data):
        params, loss = step(params, batch)
        if i % 100 == 0 and loss < 1e-3:   # sync once every 100 steps
            break
    ```
    or move the loop onto the device with ``lax.while_loop``.

    ## Fix safety
    No fix is offered.
    """

    code = "JS207"
    name = "host-sync-in-loop"
    message = ("Python `{stmt}` on `{expr}`, the result of jitted `{function}`, {where}: it waits for the device and "
               "copies the value to the host on every iteration; keep the values and test them after the loop or every N "
               "steps, or use lax.while_loop")
    severity = "warning"
    nodes = (ast.If, ast.While)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if ctx.in_traced:
            return
        if in_test_file(ctx):
            return  # a test's loop runs over cases and needs each value on the host to assert on it
        is_while = isinstance(node, ast.While)
        if not is_while and not ctx.in_loop:
            return
        if not ctx.info.jitted_callables and not mentions_jit(ctx, ctx.frame.node or ctx.tree):
            return  # nothing jitted in the module or this function: no result to sync on
        facts = _facts(ctx)
        source = _device_source(ctx, node.test, facts)  # type: ignore[attr-defined]
        if source is None:
            return
        where = "as the loop condition" if is_while else "inside a loop"
        stmt = "while" if is_while else "if"
        expr = short(ctx, node.test)  # type: ignore[attr-defined]
        if is_while or _leaves_loop(node.body):  # type: ignore[attr-defined]
            # The value decides whether the loop goes on: the next step cannot be dispatched before it is
            # known, so the sync is the loop's own design; what remains is a trade-off, said as advice.
            ctx.report(self, node.test, DECIDES.format(stmt=stmt, expr=expr, function=source, where=where),
                       severity="info", stmt=stmt, expr=expr, function=source, where=where, decides_loop=True)
            return
        ctx.report(self, node.test, stmt=stmt, expr=expr, function=source, where=where)  # type: ignore[attr-defined]


DECIDES = ("Python `{stmt}` on `{expr}`, the result of jitted `{function}`, {where} decides whether the loop goes "
           "on: a host sync on every iteration that this loop needs (the next step waits for the value); if "
           "stopping up to N steps late is acceptable test it every N steps, otherwise only lax.while_loop "
           "keeps the loop on the device")


def _leaves_loop(body: list[ast.stmt]) -> bool:
    """Does a block end the enclosing loop (``break``, ``return``, ``raise``), outside nested defs? A ``break``
    of a nested loop ends only that loop."""
    todo: list[tuple[ast.AST, bool]] = [(n, False) for n in body]
    while todo:
        n, inner = todo.pop()
        t = type(n)
        if t in (ast.Return, ast.Raise) or (t is ast.Break and not inner):
            return True
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        nested = inner or t in (ast.For, ast.AsyncFor, ast.While)
        todo.extend((m, nested) for m in ast.iter_child_nodes(n))
    return False


class _Facts:
    """Per frame: names of jitted callables, and names holding only their results (-> the callable)."""

    def __init__(self, ctx: Context) -> None:
        self.jitted: set[str] = {n for n in ctx.info.jitted_callables if ctx._local_frame(n) is None}
        scope = ctx.frame.node if ctx.frame.node is not None else ctx.tree
        self.results: dict[str, str] = {}
        if isinstance(scope, ast.Lambda):
            return
        stmts = own_statements(scope)
        binds = statement_bindings(stmts)
        if scope is not ctx.tree:
            self.jitted |= {n for n in _module_jits(ctx) if ctx._local_frame(n) is None}
        for name, entries in binds.items():  # `g = jax.jit(f)` and `@jax.jit def g` here
            for node, value, plain, _ in entries:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if any(_wraps(ctx, d) for d in node.decorator_list):
                        self.jitted.add(name)
                elif plain and isinstance(value, ast.Call) and _wraps(ctx, value.func):
                    self.jitted.add(name)
        for name, entries in binds.items():
            callees = {_jitted_callee(value, self.jitted) for _, value, _, _ in entries}
            if len(callees) == 1 and None not in callees:
                self.results[name] = callees.pop()  # type: ignore[assignment]


def _module_jits(ctx: Context) -> set[str]:
    """Module-level names bound to a jitted callable (``g = jax.jit(f)``, ``@jax.jit def g``), cached."""
    return ctx.memo(_find_module_jits)


def _find_module_jits(ctx: Context) -> set[str]:
    names = set()
    for name, entries in statement_bindings(own_statements(ctx.tree)).items():
        for node, value, plain, _ in entries:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_wraps(ctx, d) for d in node.decorator_list):
                    names.add(name)
            elif plain and isinstance(value, ast.Call) and _wraps(ctx, value.func):
                names.add(name)
    return names


def _wraps(ctx: Context, func: ast.AST) -> bool:
    if isinstance(func, ast.Call):
        q = ctx.resolve(func.func)
        if q in ("functools.partial", "partial") and func.args:
            return ctx.resolve(func.args[0]) in JIT_LIKE
        return q in JIT_LIKE
    return ctx.resolve(func) in JIT_LIKE


def _jitted_callee(value: ast.AST | None, jitted: set[str]) -> str | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in jitted:
        return value.func.id
    return None


def _facts(ctx: Context) -> _Facts:
    facts = ctx.frame.scratch.get(_facts)
    if facts is None:
        facts = ctx.frame.scratch[_facts] = _Facts(ctx)
    return facts


def _device_source(ctx: Context, e: ast.AST, facts: _Facts) -> str | None:
    """The jitted callable whose (still on-device) result ``e`` reads the value of, if any."""
    t = type(e)
    if t is ast.Name:
        return facts.results.get(e.id)  # type: ignore[attr-defined]
    if t is ast.Call:
        callee = _jitted_callee(e, facts.jitted)
        if callee is not None:
            return callee
        func = e.func  # type: ignore[attr-defined]
        q = ctx.resolve(func)
        if q in STATIC_CALLS:
            return None
        if q in _TO_PYTHON or (q or "").startswith(("jax.numpy.", "numpy.")):
            return next((s for a in e.args if (s := _device_source(ctx, a, facts))), None)  # type: ignore[attr-defined]
        if isinstance(func, ast.Attribute) and func.attr not in STATIC_ATTRS:
            return _device_source(ctx, func.value, facts)  # `loss.item()`, `out.sum()`
        return None
    if t is ast.Attribute:
        return None if e.attr in STATIC_ATTRS else _device_source(ctx, e.value, facts)  # type: ignore[attr-defined]
    if t is ast.Subscript:
        return _device_source(ctx, e.value, facts)  # type: ignore[attr-defined]
    if t is ast.Compare:
        if any(type(op) in (ast.Is, ast.IsNot, ast.In, ast.NotIn) for op in e.ops):  # type: ignore[attr-defined]
            return None
        parts = [e.left, *e.comparators]  # type: ignore[attr-defined]
    elif t is ast.BoolOp:
        parts = e.values  # type: ignore[attr-defined]
        if type(e.op) is ast.And and _throttled(parts):  # type: ignore[attr-defined]
            return None
    elif t is ast.BinOp:
        parts = [e.left, e.right]  # type: ignore[attr-defined]
    elif t is ast.UnaryOp:
        parts = [e.operand]  # type: ignore[attr-defined]
    else:
        return None
    return next((s for p in parts if (s := _device_source(ctx, p, facts))), None)


def _throttled(parts: list[ast.expr]) -> bool:
    """``i % 100 == 0 and loss < tol``: a modulo test first, so the device value is read every N steps."""
    first = parts[0]
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(first))
