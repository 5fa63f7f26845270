"""JS205 jit-nested-def."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE, decorator_spec
from ..unknown_callers import is_test_module

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class JitNestedDef(Rule):
    """``@jax.jit`` on a function defined inside another function that runs repeatedly.

    ## What it does
    Flags a ``@jax.jit`` (``@partial(jax.jit, ...)``, ``@eqx.filter_jit``, ...) decorated
    function defined inside another function's body and called there, when that body runs
    repeatedly: the definition sits in a loop, or the enclosing function is called inside
    a loop somewhere in the module (``for batch in data: train_step(...)``). Factories that
    return or store the jitted function, code inside test functions and functions that are
    themselves traced are not flagged. A nested function that reads the enclosing function's parameters
    as a configuration (``config["scale"]``, ``cfg.depth``), or any of them in a test module (a test helper
    run per case), is a different program on each call: one compile per value is what it needs, said as
    ``info``. The call forms are other rules': ``jax.jit(inner)`` in a
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
        captured = _captured_parameters(outer.node, fn)
        if captured and (is_test_module(ctx.filename) or all(_config_reads(fn, n) for n in captured)):
            # `def _run(self, config): @jax.jit def f(x): ... config[...]`: each call builds the program of its
            # own `config`; hoisting it would change what it computes. One compile per value is what it needs
            # unless the value becomes an argument, which pays off only if it can be traced (JS203's capture).
            names = ", ".join(f"`{n}`" for n in captured)
            ctx.report(self, dec, f"`@{spec.wrapper}` on `{fn.name}`, defined inside `{outer.name}`, which {why}, "
                       f"captures `{outer.name}`'s {names}: it compiles once per call, for that call's value; if "
                       f"{names} can be an array, pass it as an argument and one compile serves every call; a Python "
                       "value (a config, options, a shape) needs a compile per distinct value either way",
                       severity="info", wrapper=spec.wrapper, function=fn.name, outer=outer.name, why=why,
                       captures=", ".join(captured))
            return
        ctx.report(self, dec, wrapper=spec.wrapper, function=fn.name, outer=outer.name, why=why)


def _config_reads(fn: ast.AST, name: str) -> bool:
    """Does ``fn`` read ``name`` only as a configuration: an item or field of it (``config["scale"]``,
    ``cfg.depth``), never the value itself in array math (``batch * p``: an array argument would do)?"""
    parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            p = parents.get(n)
            if isinstance(p, ast.Attribute) and p.value is n:
                continue
            if isinstance(p, ast.Subscript) and p.value is n and isinstance(p.slice, ast.Constant) \
                    and isinstance(p.slice.value, str):
                continue
            return False
    return True


def _captured_parameters(outer: ast.AST, fn: ast.AST) -> list[str]:
    """The parameters of ``outer`` (not ``self``/``cls``) that the nested ``fn`` reads as free variables: values
    that differ from call to call of ``outer``, baked into each new function object."""
    a = outer.args  # type: ignore[attr-defined]
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} - {"self", "cls"}
    params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    fa = fn.args  # type: ignore[attr-defined]
    own = {p.arg for p in (*fa.posonlyargs, *fa.args, *fa.kwonlyargs, fa.vararg, fa.kwarg) if p is not None}
    own |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return sorted((reads - own) & params)


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
