"""JS209 eager-control-flow-fresh-body."""

from __future__ import annotations

import ast
import os

from ..astutil import iter_child_nodes
from ..context import Context
from ..facts import importable, references
from ..rule import Rule

# Control flow whose eager call traces its body and compiles the primitive, cached on the body's identity.
_CONTROL = frozenset({"jax.lax.cond", "jax.lax.switch", "jax.lax.while_loop", "jax.lax.fori_loop", "jax.lax.scan",
                      "jax.lax.map"})
_BODY_ARGS = {"jax.lax.cond": (1, 2), "jax.lax.switch": (1,), "jax.lax.while_loop": (0, 1),
              "jax.lax.fori_loop": (2,), "jax.lax.scan": (0,), "jax.lax.map": (0,)}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class EagerControlFlowFreshBody(Rule):
    """``lax.cond``/``scan``/``fori_loop``/... called eagerly in a loop with a body made anew each iteration.

    ## What it does
    Flags a ``jax.lax`` control-flow call (``cond``, ``switch``, ``while_loop``, ``fori_loop``,
    ``scan``, ``map``) inside a ``for``/``while`` loop of code that is certainly not traced (the
    module's top level, a test function of a test file, or a function that only such code calls, in a
    script, a test file or under a private name), or anywhere in such a function that eager code calls
    inside a loop, when a body it is given is a ``lambda``, a ``functools.partial`` or a function
    defined inside the loop. A loop of at most two iterations is not flagged. In such a function, a
    local name given as the body whose every binding reaching the call is a ``lambda`` or ``partial`` the
    function builds (``branch = lambda v: ...`` in an ``if``) is reported at that binding, where the fix
    goes, with the call in ``details.related``.

    ## Why is this bad?
    Called outside jit, each of these traces its body and compiles the primitive, cached on the
    body's identity (checked under real JAX: ``lax.cond`` with fresh lambdas compiled on every
    iteration, the same functions once). A new lambda per iteration is a new body: a trace and a
    compile per iteration. Under a jit the same code is traced once with the enclosing function,
    which is why library code that its users jit is not flagged.

    ## Example
    ```python
    for x in batches:
        y = lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)
    ```

    ## Use instead
    ```python
    def up(v): return v + 1
    def down(v): return v - 1
    for x in batches:
        y = lax.cond(x.sum() > 0, up, down, x)   # or jit the loop body
    ```

    ## Fix safety
    No fix is offered: which values may be traced, or where the state should go, is the program's choice.
    """

    code = "JS209"
    name = "eager-control-flow-fresh-body"
    message = ("`{wrapper}` called eagerly {where} with {what} as its body: outside jit it traces and compiles "
               "again for each new body object, {when}; define the body once {place} (or jit the loop's step)")
    severity = "warning"
    nodes = (ast.Call,)
    calls = _CONTROL
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        q = ctx.resolve(call.func) or ""
        if q not in _CONTROL or ctx.frame.traced or not _certainly_eager(ctx):
            return
        for i in _BODY_ARGS[q]:
            if i >= len(call.args):
                continue
            arg = call.args[i]
            if isinstance(arg, (ast.List, ast.Tuple)):  # lax.switch(i, [f, g], x)
                found = next((w for w in map(lambda a: _fresh(ctx, a), arg.elts) if w), None)
            else:
                found = _fresh(ctx, arg)
            built = None
            if not found and not ctx.in_loop:
                built = _built_in_function(ctx, arg)
                if built is not None:
                    found = f"`{arg.id}`, a {'lambda' if type(built) is ast.Lambda else 'new `partial`'} it builds at each call"  # type: ignore[attr-defined]
            if found:
                if ctx.in_loop:
                    where, when, place = "inside a loop", "every iteration", "before the loop"
                else:
                    name = ctx.frame.name
                    where, when, place = f"in `{name}`, which eager code calls in a loop", "every call", f"outside `{name}`"
                related = None
                if built is not None:  # the fix goes where the body is built; the call is related
                    related = [{"file": ctx.filename, "line": call.lineno,
                                "message": f"the eager `{q.replace('jax.lax.', 'lax.')}` call it is given to"}]
                ctx.report(self, built if built is not None else call, wrapper=q.replace("jax.lax.", "lax."),
                           what=found, where=where, when=when, place=place, related=related)
                return


def _fresh(ctx: Context, arg: ast.AST) -> str | None:
    if isinstance(arg, ast.Lambda):
        return "a lambda"
    if isinstance(arg, ast.Call) and (ctx.resolve(arg.func) or "").endswith("partial"):
        return "a new `partial`"
    if isinstance(arg, ast.Name) and len(ctx.frames) > 1 and arg.id in ctx.frame.loop_defs:
        return f"local function `{arg.id}` (defined anew in every iteration)"
    return None


def _built_in_function(ctx: Context, arg: ast.AST) -> ast.AST | None:
    """The first ``lambda``/``partial(...)`` a local name given as a body is bound to, when every binding of it
    that reaches the call is one, made in the enclosing function itself (a new object at each call of it)."""
    from ._static_args import values_of

    if type(arg) is not ast.Name or len(ctx.frames) < 2 or ctx.frame.node is None:
        return None
    frame = ctx._local_frame(arg.id)  # type: ignore[attr-defined]
    if frame is not ctx.frame or arg.id in frame.params:  # type: ignore[attr-defined]
        return None
    values = values_of(ctx, arg)  # type: ignore[arg-type]
    if not values or any(v is None or _fresh(ctx, v) is None or type(v) not in (ast.Lambda, ast.Call) for v in values):
        return None
    return min(values, key=lambda v: (v.lineno, v.col_offset))  # type: ignore[union-attr]


def _certainly_eager(ctx: Context) -> bool:
    """Is the current code run outside any trace, more than once, on every way it is reached: the module's
    top level, a pytest/unittest test function, or a module-level function whose every reference is a call
    from such code (transitively: ``main`` called under ``if __name__ == "__main__":`` calling ``train``)?
    A loop there runs its body again and again; so does the whole body of such a function that eager code
    calls inside a loop (``for batch in data: step(batch)``), which is why ``ctx.in_loop`` alone is not
    required (``repeated``)."""
    looped = ctx.in_loop and not _few_trips(next((p for p in reversed(ctx.parents) if isinstance(p, _LOOPS)), None))
    if len(ctx.frames) == 1:
        return looped
    if len(ctx.frames) != 2:
        return False
    fn = ctx.frame.node
    eager, repeated = _eager_model(ctx)
    return fn in eager and (looped or fn in repeated)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _few_trips(loop: ast.AST | None) -> bool:
    """A ``for`` over ``range(2)`` or a literal pair: a second compile at most, nothing to flag."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    it = loop.iter
    if isinstance(it, (ast.Tuple, ast.List)):
        return len(it.elts) <= 2
    return (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1
            and isinstance(it.args[0], ast.Constant) and isinstance(it.args[0].value, int) and it.args[0].value <= 2)


_TEST_DECORATOR_HEADS = ("pytest.", "absl.testing.", "unittest.", "parameterized.", "hypothesis.")


def _test_file(ctx: Context) -> bool:
    base = os.path.basename(ctx.filename)
    return base.startswith("test_") or base.endswith("_test.py")


def _test_function(ctx: Context, fn: ast.AST, cls: ast.ClassDef | None) -> bool:
    """A test function the test runner calls, eagerly: ``test*`` at module level or in a ``Test*``/``*Test``
    class of a test file, decorated at most by the runner's marks (``pytest.mark.parametrize``)."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.name.startswith("test"):
        return False
    if cls is not None and not (cls.name.startswith("Test") or cls.name.endswith(("Test", "Tests"))):
        return False
    return all((ctx.resolve(d.func if isinstance(d, ast.Call) else d) or "").startswith(_TEST_DECORATOR_HEADS)
               for d in fn.decorator_list)


def _eager_model(ctx: Context) -> tuple[frozenset, frozenset]:
    """(the defs that run only eagerly, those of them that run more than once): built once per module."""
    return ctx.memo(_build_eager_model)


def _build_eager_model(ctx: Context) -> tuple[frozenset, frozenset]:
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    scopes: list[tuple[ast.AST | None, list[ast.AST]]] = [(None, [s for s in ctx.tree.body if not isinstance(s, _SCOPES)])]
    eager: set[ast.AST] = set()
    test_file = _test_file(ctx)
    for stmt in ctx.tree.body:
        methods = [(m, stmt) for m in stmt.body] if isinstance(stmt, ast.ClassDef) else [(stmt, None)]
        for fn, cls in methods:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if cls is None:
                defs[fn.name] = fn
            if test_file and _test_function(ctx, fn, cls):
                eager.add(fn)
            scopes.append((fn, fn.body))
    # calls[name] = [(calling def or None for the top level, inside a loop there)]
    calls: dict[str, list[tuple[ast.AST | None, bool]]] = {}
    for owner, body in scopes:
        stack = [(s, False) for s in body]
        while stack:
            n, looped = stack.pop()
            if isinstance(n, _SCOPES):
                continue
            if isinstance(n, ast.Call):
                if isinstance(n.func, ast.Name) and n.func.id in defs:
                    calls.setdefault(n.func.id, []).append((owner, looped))
                elif (ctx.resolve(n.func) or "") == "absl.app.run" and n.args and isinstance(n.args[0], ast.Name):
                    calls.setdefault(n.args[0].id, []).append((owner, False))  # absl's `app.run(main)` calls main
            loop = isinstance(n, _LOOPS) and not _few_trips(n)
            stack.extend((child, looped or (loop and child in n.body)) for child in iter_child_nodes(n))
    refs = references(ctx)
    repeated: set[ast.AST] = set()
    changed = True
    while changed:
        changed = False
        for name, fn in defs.items():
            sites = calls.get(name, ())
            if fn in eager or not sites or fn.decorator_list or len(sites) != refs[name]:
                continue
            if (importable(ctx, _FrameOf(fn)) and not test_file) or \
                    any(owner is not None and owner not in eager for owner, _ in sites):
                continue
            eager.add(fn)
            changed = True
        for name, fn in defs.items():
            if fn in eager and fn not in repeated and any(
                    looped or owner in repeated for owner, looped in calls.get(name, ())):
                repeated.add(fn)
                changed = True
    return frozenset(eager), frozenset(repeated)


class _FrameOf:
    """What ``facts.importable`` reads of a frame: its def."""

    def __init__(self, node: ast.AST) -> None:
        self.node = node
