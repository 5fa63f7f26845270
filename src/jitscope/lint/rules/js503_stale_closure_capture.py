"""JS503 stale-closure-capture."""

from __future__ import annotations

import ast

from ..astutil import ast_walk
from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE, ModuleInfo, decorator_spec
from ._scan import BLOCKS, SCOPES, Stmts, mentions_jit, own_statements, statement_bindings


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
        if not mentions_jit(ctx, fn):
            return  # no jit inside: nothing can go stale (a text check, far cheaper than any walk)
        stmts = own_statements(fn)
        jitted = _jitted_closures(stmts, ctx.info)
        if not jitted:
            return
        binds = {k: [(n, loops) for n, _, _, loops in v] for k, v in statement_bindings(stmts).items()}
        params = _params(fn)
        calls: dict[str, list[tuple[ast.AST, tuple[ast.AST, ...]]]] = {}
        for callee, created, body, own in jitted:
            reads = _free_reads(body, own) & (params | set(binds))
            # The callable's name bound again (a second `def f`): later calls of `f` run that one.
            redefined = min((_pos(b) for b, _ in binds.get(callee, []) if _pos(b) > _pos(created)),
                            default=(1 << 30, 0))
            for var in sorted(reads):
                later = [(b, loops) for b, loops in binds.get(var, []) if _pos(created) < _pos(b) < redefined]
                if not later:
                    continue
                if callee not in calls:
                    calls[callee] = _calls(stmts, callee)  # only now: the one walk over expressions
                for rebind, rebind_loops in later:
                    # stale only if a call traced it before the rebinding and a call runs it after
                    # ... of this function: a call after the name is bound again runs the new one
                    own = [(c, c_loops) for c, c_loops in calls[callee] if _pos(c) < redefined]
                    if any(_before_or_same_loop(c, c_loops, rebind, rebind_loops, created)
                           for c, c_loops in own) and any(
                            _pos(c) > _pos(rebind) or any(loop in rebind_loops for loop in c_loops)
                            for c, c_loops in own):
                        ctx.report(self, rebind, var=var, function=callee, line=created.lineno)
                        break


def _jitted_closures(stmts: Stmts, info: ModuleInfo) -> list[tuple[str, ast.AST, ast.AST, set[str]]]:
    """(callable name, where it is made, the traced body, its parameters) of each jitted closure made here."""
    nested: dict[str, list[ast.AST]] = {}
    for st, _ in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.setdefault(st.name, []).append(st)
    out: list[tuple[str, ast.AST, ast.AST, set[str]]] = []
    for st, _ in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any((spec := decorator_spec(info, d)) is not None and spec.wrapper in JIT_LIKE
                   for d in st.decorator_list):
                out.append((st.name, st, st, _params(st)))
        elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and isinstance(st.value, ast.Call) and st.value.args and info.resolve(st.value.func) in JIT_LIKE:
            target = st.value.args[0]
            if isinstance(target, ast.Lambda):
                out.append((st.targets[0].id, st, target.body, _params(target)))
            elif isinstance(target, ast.Name) and target.id in nested:
                # the def of that name in force where the jit is applied (a later `def simulate` is another function)
                before = [d for d in nested[target.id] if _pos(d) < _pos(st)]
                if before:
                    inner = before[-1]
                    out.append((st.targets[0].id, st, inner, _params(inner)))  # type: ignore[arg-type]
    return out


def _calls(stmts: Stmts, callee: str) -> list[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """Calls ``callee(...)`` in the statements' own expressions, each with its statement's loops."""
    out = []
    for st, loops in stmts:
        if isinstance(st, SCOPES):
            continue
        for name, value in ast.iter_fields(st):
            if name in BLOCKS:
                continue
            for n in ast_walk(value) if isinstance(value, ast.AST) else (
                    m for v in value if isinstance(v, ast.AST) for m in ast_walk(v)) if isinstance(value, list) else ():
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == callee:
                    # A while loop's test runs on every iteration: calls there belong to the loop.
                    out.append((n, loops + (st,) if isinstance(st, ast.While) and value is st.test else loops))
    return out


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


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = fn.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}


def _free_reads(body: ast.AST, params: set[str]) -> set[str]:
    """Names ``body`` reads that it does not bind itself (an over-approximation of its free variables)."""
    loads, stores = set(), set(params)
    for n in ast_walk(body):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not body:
            stores.add(n.name)
        elif isinstance(n, ast.arg):
            stores.add(n.arg)
    return loads - stores
