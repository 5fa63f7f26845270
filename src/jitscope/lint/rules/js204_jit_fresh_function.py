"""JS204 jit-fresh-function."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE
from ._util import fresh_function, in_test_file


class JitFreshFunction(Rule):
    """``jax.jit`` of a lambda or local function created on every call of the enclosing function.

    ## What it does
    Flags ``jax.jit(lambda ...)``, ``jax.jit(partial(...))`` or ``jax.jit(inner)`` (``inner``
    defined in the same function) inside a function body, when the jitted result is used
    right there: called at once or kept in a local variable. Factories that ``return`` the
    jitted function or store it on ``self`` are not flagged, nor are test functions
    (``test*``), which run once, nor drivers that bind the jitted function to a name and
    call it inside a loop of the same function (``step = jax.jit(...)`` then
    ``for batch in data: step(...)``): that compiles once per run of the driver, and the
    loop reuses it. One-shot drivers are not flagged either: ``main``, a CLI command, or a
    module-level function called only from module-level code outside loops
    (``if __name__ == "__main__": train()``) compiles the same number of times without the jit.
    Nor are: a ``jax.pmap`` of a closure over the enclosing call's values, or a jit of
    ``partial(lax.scan, body)`` with such a closure (an eager ``lax.scan`` compiles the new body
    too: blackjax's drivers); a jitted name handed to another call (a driver's step:
    ``evaluate(p_eval_step=p_eval_step)``); the ``__call__`` of a haiku/Flax/equinox module
    (it runs under its user's jit, which inlines the inner one); anything in a test file; a jit built
    once per object or key: in ``__init__``/``__post_init__``, in an ``@functools.lru_cache``/``cache``
    factory, or under a memo slot that outlives the call (``if self._f is None: self._f = ...``).
    Nor a jit-wrapping decorator: the jitted function kept in a local that a returned closure uses
    (``jitted = jax.jit(...)``; ``def wrapper(*a): return jitted(*a)``; ``return wrapper``) is built once per
    decorated function and reused by every call of the wrapper. Nor a jit inside a function that is itself
    traced (jitted, or reached from a jitted function): the inner jit is inlined into the outer trace and compiles
    nothing of its own.

    The cost is paid only when the enclosing function runs more than once with the same program. It is a
    ``warning`` when the source shows that: the function is called (``f(...)``, ``obj.f(...)``) inside a loop
    body or a comprehension of this module, or by a function that is itself so called. Otherwise (a ``train()``
    or ``init()`` that a launcher runs once, or a caller in another module) it is an ``info`` that says the
    condition: "if `train` runs more than once with the same program, each call recompiles".

    ## Why is this bad?
    Each call of the enclosing function creates a new function object, and jit's cache is
    keyed on function identity, so every call traces and compiles from scratch: a compile
    (often 10-1000x the run time) on every call.

    ## Example
    ```python
    def predict(params, x):
        return jax.jit(lambda p, v: model(p, v))(params, x)
    ```

    ## Use instead
    ```python
    predict_jit = jax.jit(model)

    def predict(params, x):
        return predict_jit(params, x)
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS204"
    name = "jit-fresh-function"
    message = "`{wrapper}` of {what} on every call of `{function}`: recompiles on every call; create the jitted function once (outside the loop or the calling function) and reuse it"
    severity = "warning"
    nodes = (ast.Call,)
    calls = JIT_LIKE
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if ctx.in_loop or len(ctx.frames) < 2 or isinstance(ctx.frame.node, ast.Lambda):
            return
        if ctx.frame.name.startswith(("test", "setUp")) or in_test_file(ctx):
            return  # a test (and its helpers) runs once per case: compiling there is the test's business
        fn = ctx.frame.node
        if len(ctx.frames) == 2 and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and ctx.info.runs_once(fn):
            return  # a one-shot driver (`main`): it compiles once per run with or without the jit
        if ctx.under_trace:
            return  # inside a traced function the inner jit is inlined into that trace: no compile of its own
        if _module_method(ctx):
            return  # a module's `__call__` runs under its user's jit: the inner jit is inlined, not recompiled
        if _built_once(ctx):
            return
        what = fresh_function(ctx, node)  # type: ignore[arg-type]
        if what is None or _compiles_anyway(ctx, node):  # type: ignore[arg-type]
            return
        parent = ctx.parents[-1] if ctx.parents else None
        if isinstance(parent, ast.Call) and parent.func is node:
            pass  # jit(...)(args): compiled and thrown away
        elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            target = parent.targets[0].id
            if target in ctx.frame.declared_global or target in ctx.frame.declared_nonlocal:
                return  # `global step_fn; step_fn = jax.pmap(...)`: a cache kept across calls, built once
            if _escapes(ctx.frame.node, target):
                return
            if _called_in_loop(ctx.frame.node, parent.targets[0].id):
                return  # a driver: `step = jax.jit(...)` then `for batch in data: step(...)` compiles once per run
        else:
            return  # returned, stored on an object, passed on: a factory, created once by its caller
        wrapper, function = ctx.resolve(node.func), ctx.frame.name  # type: ignore[attr-defined]
        if function in ctx.memo(_called_repeatedly):
            ctx.report(self, node, wrapper=wrapper, what=what, function=function)
            return
        msg = (f"`{wrapper}` of {what} on every call of `{function}`: if `{function}` runs more than once with the "
               f"same program, each call recompiles; no loop or repeated caller of `{function}` is seen here (a "
               f"`train()` or `init()` that runs once compiles once either way); to be safe, create the jitted "
               f"function once and reuse it")
        ctx.report(self, node, msg, severity="info", wrapper=wrapper, what=what, function=function)


_CACHES = frozenset({"functools.lru_cache", "functools.cache", "functools.cached_property", "lru_cache", "cache",
                     "cached_property"})
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__"})


def _built_once(ctx: Context) -> bool:
    """Is the enclosing code run once per key or per object, so the jit it builds is built once there: a
    constructor (``__init__``: once per object, and the jit closes over that object's configuration), a
    cached factory (``@functools.lru_cache``: once per argument), or a memo (``if self._f is None:
    self._f = ...``: once, then reused)?"""
    fn = ctx.frame.node
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if fn.name in _CONSTRUCTORS:
            return True
        for dec in fn.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if (ctx.resolve(target) or "") in _CACHES:
                return True
    for p in reversed(ctx.parents):
        if p is fn:
            break
        if isinstance(p, ast.If) and _memo_guard(ctx, p):
            return True
    return False


def _memo_guard(ctx: Context, node: ast.If) -> bool:
    """``if self._f is None: self._f = ...`` / ``if k not in TABLE: TABLE[k] = ...``: the body fills what the test
    checks, and it outlives the call (an attribute or a global; a local filled so is empty again next call)."""
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        slot = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        slot = test.left
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn):
        slot = test.comparators[0]
    else:
        return False
    f = ctx.frame
    if isinstance(slot, ast.Name) and (slot.id in f.bound or slot.id in f.params) \
            and slot.id not in f.declared_global and slot.id not in f.declared_nonlocal:
        return False
    key = ast.dump(slot)
    for stmt in ast.walk(node):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                filled = t.value if isinstance(t, ast.Subscript) else t  # `table[k] = ...` fills `table`
                if ast.dump(_load(filled)) == key:
                    return True
    return False


def _load(node: ast.AST) -> ast.AST:
    """``node`` as it reads when loaded (an assignment target's ``Store`` context made ``Load``)."""
    if isinstance(node, ast.Name):
        return ast.Name(id=node.id, ctx=ast.Load())
    if isinstance(node, ast.Attribute):
        return ast.Attribute(value=_load(node.value), attr=node.attr, ctx=ast.Load())
    return node


def _module_method(ctx: Context) -> bool:
    """Is the current function the ``__call__`` of a class derived from a ``...Module`` (haiku, Flax, equinox)?"""
    if ctx.frame.name != "__call__" or len(ctx.parents) < 1:
        return False
    for p in reversed(ctx.parents):
        if isinstance(p, ast.ClassDef):
            return any((ctx.resolve(b) or "").rpartition(".")[2].endswith("Module") for b in p.bases)
    return False


def _free_locals(fn: ast.AST, local: set[str]) -> bool:
    """Does function ``fn`` read a name of ``local`` that it does not bind itself (a closure variable)?"""
    a = fn.args  # type: ignore[attr-defined]
    own = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            own.add(n.id)
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in local and n.id not in own
               for n in ast.walk(fn))


_LOOP_PRIMITIVES = frozenset({"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map",
                              "jax.lax.associative_scan"})


def _compiles_anyway(ctx: Context, call: ast.Call) -> bool:
    """Does the wrapped closure cost one compile per call of the enclosing function with or without the jit?

    ``jax.jit(partial(lax.scan, step))`` where ``step`` closes over this call's values: an eager
    ``lax.scan`` of a new ``step`` compiles it too (blackjax's drivers jit it only to cut dispatch).
    ``jax.pmap(training_epoch)`` of a closure over a training run's configuration: there is no
    parallel run without the pmap, and the closure cannot exist before the run.
    """
    fn = call.args[0]
    wrapper = ctx.resolve(call.func) or ""
    if wrapper.rpartition(".")[2] == "pmap":
        return _closes_over_locals(ctx, fn)
    if isinstance(fn, ast.Call) and (ctx.resolve(fn.func) or "").endswith("partial") and fn.args \
            and ctx.resolve(fn.args[0]) in _LOOP_PRIMITIVES:
        return any(_closes_over_locals(ctx, a) for a in fn.args[1:])
    return False


def _closes_over_locals(ctx: Context, fn: ast.AST) -> bool:
    """Is ``fn`` (a lambda, a local def, or a partial of one) a closure over the enclosing call's locals?"""
    frame = ctx.frame
    local = frame.bound | frame.params
    if isinstance(fn, ast.Lambda):
        return _free_locals(fn, local)
    if isinstance(fn, ast.Name) and fn.id not in frame.nested_defs:
        # a function defined in an enclosing function (blackjax's `step` beside `run_steps`): a closure too
        return any(fn.id in f.nested_defs for f in ctx.frames[1:-1])
    if isinstance(fn, ast.Name):
        defs = [n for n in ast.walk(frame.node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == fn.id and n is not frame.node]
        return any(_free_locals(d, local) for d in defs)
    if isinstance(fn, ast.Call) and (ctx.resolve(fn.func) or "").endswith("partial"):
        return any(isinstance(a, (ast.Lambda, ast.Name)) and _closes_over_locals(ctx, a) for a in fn.args)
    return False


def _escapes(fn: ast.AST | None, name: str) -> bool:
    """Is ``name`` itself (not a call of it) returned, yielded, stored somewhere that outlives the call, or
    handed to another function (``evaluate(p_eval_step, ...)``: a driver's step, called there many times)?"""
    if fn is None:
        return True
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name
                                           for a in [*n.args, *(k.value for k in n.keywords)]):
            return True
        if isinstance(n, (ast.Return, ast.Yield)) and n.value is not None:
            if _mentions(n.value, name):
                return True
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id == name:
            if any(not isinstance(t, ast.Name) for t in n.targets):
                return True
    # a closure that uses it and itself escapes (a decorator's returned `wrapper`): built once per decoration,
    # then reused by every call of the wrapper
    return any(isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d is not fn and d.name != name
               and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(d)) and _escapes(fn, d.name)
               for d in ast.walk(fn))


def _mentions(node: ast.AST, name: str) -> bool:
    called = {c.func for c in ast.walk(node) if isinstance(c, ast.Call)}
    return any(isinstance(m, ast.Name) and m.id == name and m not in called for m in ast.walk(node))


def _called_in_loop(fn: ast.AST | None, name: str) -> bool:
    """Is ``name(...)`` called inside a ``for``/``while`` loop of ``fn`` (not of a nested function)?"""
    if fn is None:
        return False
    stack: list[tuple[ast.AST, bool]] = [(c, False) for c in ast.iter_child_nodes(fn)]
    while stack:
        n, in_loop = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if in_loop and isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name:
            return True
        loop = in_loop or isinstance(n, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((c, loop) for c in ast.iter_child_nodes(n))
    return False


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _repeats(loop: ast.AST, child: ast.AST) -> bool:
    """Does ``child`` of ``loop`` run once per iteration (a loop body, a ``while`` test, a comprehension's element),
    not once per loop (the iterable of a ``for`` or of a comprehension's first ``for``, an ``else`` block)?"""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return child is not loop.iter and child not in loop.orelse
    if isinstance(loop, ast.While):
        return child not in loop.orelse
    if isinstance(loop, _COMPREHENSIONS):
        return child is not loop.generators[0]
    if isinstance(loop, ast.comprehension):
        return child is not loop.iter  # the first generator's iter was handled above; inner ones repeat
    return False


def _called_repeatedly(ctx: Context) -> frozenset[str]:
    """Names of this module's functions the source shows running more than once: called (``f(...)``,
    ``obj.f(...)``) inside a loop or comprehension, or called anywhere by a function that is itself so.
    A function no one here calls again (a ``train()`` a launcher runs once) is not among them."""
    defs: dict[str, list[ast.AST]] = {}
    for n in ast.walk(ctx.tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(n.name, []).append(n)
    looped: set[str] = set()
    edges: dict[str, set[str]] = {}  # caller name -> names it calls outside loops
    units: list[tuple[ast.AST, str | None]] = [(ctx.tree, None)]
    while units:
        unit, owner = units.pop()
        stack: list[tuple[ast.AST, bool]] = [(c, False) for c in ast.iter_child_nodes(unit)]
        while stack:
            n, in_loop = stack.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                units.append((n, n.name))
                continue
            if isinstance(n, ast.Call):
                f = n.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if name in defs:
                    if in_loop:
                        looped.add(name)
                    elif owner is not None:
                        edges.setdefault(owner, set()).add(name)
            stack.extend((c, in_loop or _repeats(n, c)) for c in ast.iter_child_nodes(n))
    todo = list(looped)
    while todo:
        for callee in edges.get(todo.pop(), ()):
            if callee not in looped:
                looped.add(callee)
                todo.append(callee)
    return frozenset(looped)
