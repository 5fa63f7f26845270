"""JS205 jit-nested-def."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE, decorator_spec

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class JitNestedDef(Rule):
    """``@jax.jit`` on a function defined inside another function that runs repeatedly.

    ## What it does
    Flags a ``@jax.jit`` (``@partial(jax.jit, ...)``, ``@eqx.filter_jit``, ...) decorated
    function defined inside another function's body and called there, when that body runs
    repeatedly: the definition sits in a loop, or the enclosing function is called inside
    a loop somewhere in the module (``for batch in data: train_step(...)``). Factories that
    return or store the jitted function, code inside test functions and functions that are
    themselves traced are not flagged. The call forms are other rules': ``jax.jit(inner)`` in a
    function body is JS204, ``jax.jit(lambda ...)`` in a loop is JS203.

    ## Why is this bad?
    Each run of the enclosing function executes the ``def`` again and makes a new function
    object; jit's cache is keyed on the function object, so every run traces and compiles
    the inner function from scratch (trace counts checked under real ``jax.jit``).

    ## Example
    ```python
    def train_step(params, batch):
        @jax.jit
        def loss(p):
            return jnp.mean((batch @ p) ** 2)
        return loss(params)

    for batch in data:
        train_step(params, batch)
    ```

    ## Use instead
    ```python
    @jax.jit
    def loss(p, batch):
        return jnp.mean((batch @ p) ** 2)

    def train_step(params, batch):
        return loss(params, batch)
    ```

    ## Fix safety
    No fix is offered: moving the function changes which variables it captures.
    """

    code = "JS205"
    name = "jit-nested-def"
    message = ("`@{wrapper}` on `{function}`, defined inside `{outer}`, which {why}: a new function object each "
               "time, so `{function}` is traced and compiled again every time; define it at module level")
    severity = "warning"
    nodes = (ast.FunctionDef, ast.AsyncFunctionDef)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        fn: ast.FunctionDef = node  # type: ignore[assignment]
        outer = ctx.frame
        if not isinstance(outer.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or outer.traced:
            return
        if any(f.name.startswith(("test", "setUp")) for f in ctx.frames):
            return  # a test that builds jitted closures runs once (or shows retracing on purpose)
        found = next(((d, s) for d in fn.decorator_list if (s := decorator_spec(ctx.info, d)) is not None
                      and s.wrapper in JIT_LIKE), None)
        if found is None or not _called(outer.node, fn.name) or _escapes(outer.node, fn.name):
            return
        if ctx.in_loop:
            why = "runs it in a loop (defined anew in every iteration)"
        else:
            line = _called_in_loop_at(ctx, outer.name)
            if line is None:
                return
            why = f"runs repeatedly (called in a loop at line {line})"
        dec, spec = found
        ctx.report(self, dec, wrapper=spec.wrapper, function=fn.name, outer=outer.name, why=why)


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """Nodes of ``fn``'s body, not descending into nested functions, lambdas or classes."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _called(fn: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in _own_nodes(fn))


def _escapes(fn: ast.AST, name: str) -> bool:
    """Is ``name`` itself (not a call of it) returned, yielded, stored or passed on?"""
    called = set()
    for n in _own_nodes(fn):
        if isinstance(n, ast.Call):
            called.add(id(n.func))
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in called
               for n in _own_nodes(fn))


def _called_in_loop_at(ctx: Context, name: str) -> int | None:
    """Line of a call ``name(...)`` / ``obj.name(...)`` inside a loop or comprehension of the module, if any."""
    return ctx.memo(_loop_calls).get(name)


def _loop_calls(ctx: Context) -> dict[str, int]:
    """Callee name -> the first line it is called on inside a loop or comprehension of the module."""
    table: dict[str, int] = {}
    stack: list[tuple[ast.AST, bool]] = [(s, False) for s in ctx.tree.body]
    loops = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    while stack:
        n, in_loop = stack.pop()
        if isinstance(n, _SCOPES):
            in_loop = False  # a loop around a def does not run the body
        if in_loop and isinstance(n, ast.Call):
            f = n.func
            callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if callee is not None and (callee not in table or n.lineno < table[callee]):
                table[callee] = n.lineno
        inner = in_loop or isinstance(n, loops)
        for child in ast.iter_child_nodes(n):
            once = isinstance(n, (ast.For, ast.AsyncFor)) and child is n.iter
            stack.append((child, in_loop if once else inner))
    return table
