"""JS503 stale-closure-capture."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE, ModuleInfo, decorator_spec

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class StaleClosureCapture(Rule):
    """A closure variable rebound after the function that reads it was jitted and called.

    ## What it does
    Inside one function, flags the rebinding of a local variable ``v`` when a jitted
    closure reads ``v`` (``step = jax.jit(lambda x: x * v)``, or a nested ``@jax.jit`` def),
    the rebinding comes after the closure was jitted, and the jitted closure is called
    before it (earlier in the function, or in the same loop). A rebinding before the first
    call is not flagged: the first trace sees the new value. Module-level globals are
    JS502's.

    ## Why is this bad?
    jit reads closure variables while tracing and bakes their values into the compiled
    function. Later calls with the same argument shapes reuse it, so the rebinding is
    silently ignored (checked under real ``jax.jit``) until something else forces a retrace.

    ## Example
    ```python
    def train(xs):
        lr = 1.0
        step = jax.jit(lambda x: x * lr)
        for x in xs:
            y = step(x)
            lr = lr * 0.5      # step keeps using lr = 1.0
    ```

    ## Use instead
    ```python
    def train(xs):
        lr = 1.0
        step = jax.jit(lambda x, lr: x * lr)
        for x in xs:
            y = step(x, lr)
            lr = lr * 0.5
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS503"
    name = "stale-closure-capture"
    message = ("`{var}` is rebound after `{function}` (jitted at line {line}) was called: the compiled `{function}` "
               "keeps the value it saw when traced; pass `{var}` as an argument")
    severity = "warning"
    nodes = (ast.FunctionDef, ast.AsyncFunctionDef)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        fn: ast.FunctionDef = node  # type: ignore[assignment]
        events = _Events(fn, ctx.info)
        for callee, created, body, params in events.jitted:
            reads = _free_reads(body, params) & events.locals
            for var in sorted(reads):
                for rebind, rebind_loops in events.binds.get(var, []):
                    if _pos(rebind) <= _pos(created):
                        continue
                    if any(_before_or_same_loop(c, c_loops, rebind, rebind_loops, created)
                           for c, c_loops in events.calls.get(callee, [])):
                        ctx.report(self, rebind, var=var, function=callee, line=created.lineno)
                        break


def _pos(n: ast.AST) -> tuple[int, int]:
    return (n.lineno, n.col_offset)  # type: ignore[attr-defined]


def _before_or_same_loop(call: ast.AST, call_loops: tuple[ast.AST, ...], rebind: ast.AST,
                         rebind_loops: tuple[ast.AST, ...], created: ast.AST) -> bool:
    if _pos(call) <= _pos(created):
        return False
    if _pos(call) < _pos(rebind):
        return True
    # Both in a loop that starts after the jit: the next iteration calls with the rebound value.
    return any(loop in rebind_loops and _pos(loop) > _pos(created) for loop in call_loops)


class _Events:
    """One pass over a function body (not into nested scopes): locals, bindings, jitted closures, calls."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, info: ModuleInfo) -> None:
        self.info = info
        a = fn.args
        self.locals = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        self.locals |= {p.arg for p in (a.vararg, a.kwarg) if p}
        self.binds: dict[str, list[tuple[ast.AST, tuple[ast.AST, ...]]]] = {}
        self.calls: dict[str, list[tuple[ast.AST, tuple[ast.AST, ...]]]] = {}
        self.jitted: list[tuple[str, ast.AST, ast.AST, set[str]]] = []  # (callee, created at, body, params)
        self.nested: dict[str, ast.AST] = {}
        self.declared: set[str] = set()
        stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(s, ()) for s in fn.body]
        deferred: list[ast.Assign] = []
        while stack:
            n, loops = stack.pop()
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                self.declared.update(n.names)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.locals.add(n.name)
                self.nested[n.name] = n
                if any((s := decorator_spec(info, d)) is not None and s.wrapper in JIT_LIKE
                       for d in n.decorator_list):
                    self.jitted.append((n.name, n, n, _params(n)))
                continue
            elif isinstance(n, (ast.Lambda, ast.ClassDef)):
                continue
            elif isinstance(n, ast.Assign):
                deferred.append(n)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                self.calls.setdefault(n.func.id, []).append((n, loops))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                self.locals.add(n.id)
                self.binds.setdefault(n.id, []).append((n, loops))
            inner = loops + (n,) if isinstance(n, _LOOPS) else loops
            for child in ast.iter_child_nodes(n):
                if isinstance(n, _LOOPS) and child in (getattr(n, "iter", None), getattr(n, "test", None)):
                    stack.append((child, loops if isinstance(n, ast.For) else inner))
                else:
                    stack.append((child, inner))
        self.locals -= self.declared
        for assign in deferred:
            self._jit_assign(assign)

    def _jit_assign(self, n: ast.Assign) -> None:
        call = n.value
        if not (len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(call, ast.Call)
                and call.args and self.info.resolve(call.func) in JIT_LIKE):
            return
        target = call.args[0]
        if isinstance(target, ast.Lambda):
            self.jitted.append((n.targets[0].id, n, target.body, _params(target)))
        elif isinstance(target, ast.Name) and target.id in self.nested:
            inner = self.nested[target.id]
            self.jitted.append((n.targets[0].id, n, inner, _params(inner)))  # type: ignore[arg-type]


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = fn.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}


def _free_reads(body: ast.AST, params: set[str]) -> set[str]:
    """Names ``body`` reads that it does not bind itself (an over-approximation of its free variables)."""
    loads, stores = set(), set(params)
    for n in ast.walk(body):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not body:
            stores.add(n.name)
        elif isinstance(n, ast.arg):
            stores.add(n.arg)
    return loads - stores

