"""JS206 jit-rewrap-in-loop."""

from __future__ import annotations

import ast
import re

from ...model import Fix
from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE
from ._util import Span

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class JitRewrapInLoop(Rule):
    """``jax.jit(f)`` of a module-level function, called again on every iteration of a loop.

    ## What it does
    Flags ``jax.jit(f, ...)`` (``pmap``, ``eqx.filter_jit``, ...) inside a loop when ``f`` is
    a function defined once at module level and never rebound. Lambdas, partials and
    functions defined inside the loop are JS203's (they recompile every iteration).

    ## Why is this bad?
    Here jit's cache still hits (it is keyed on ``f``, the same object every time), so
    nothing is retraced or recompiled (checked under real ``jax.jit``). But each iteration
    builds a new wrapper, whose first call misses the wrapper's fast C++ dispatch path and
    goes through Python argument processing again: a per-iteration overhead for nothing.

    ## Example
    ```python
    for batch in data:
        loss = jax.jit(loss_fn)(params, batch)
    ```

    ## Use instead
    ```python
    loss_fn_jit = jax.jit(loss_fn)
    for batch in data:
        loss = loss_fn_jit(params, batch)
    ```

    ## Fix safety
    The fix hoists the wrapper into a new variable ``f_jit`` assigned just before the loop
    (offered when the loop statement starts its line, the loop is not a comprehension,
    ``jax`` (or the wrapper's name) is imported at module level and the name ``f_jit``
    appears nowhere in the file). For ``jax.jit(f)`` with no other
    arguments it is safe: ``f`` is defined once at module level before the loop runs and
    never rebound, so the hoisted wrapper wraps the same function, and building it has no
    effect and cannot raise, even when the loop runs zero times; calls give the same results
    from the same cache. (The wrappers were distinct objects per iteration before and are
    one object after: only code comparing the wrappers' identity could tell.) With more
    arguments (``static_argnums=...``) it is unsafe: jit checks them when the wrapper is
    built, so a loop that ran zero times could now raise.
    """

    code = "JS206"
    name = "jit-rewrap-in-loop"
    message = ("`{wrapper}({function})` is built again on every iteration: no recompile, but every new wrapper "
               "pays Python dispatch again; hoist it out of the loop")
    severity = "info"
    fix = "safe"
    nodes = (ast.Call,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        if not ctx.in_loop or not call.args or not isinstance(call.args[0], ast.Name):
            return
        wrapper = ctx.resolve(call.func)
        if wrapper not in JIT_LIKE:
            return
        name = call.args[0].id
        fdef = _module_function(ctx, name)
        if fdef is None or ctx.resolve(call.args[0]) != "." + name:
            return
        fix = None
        loop = _enclosing_loop(ctx)
        if loop is not None and (len(ctx.frames) > 1 or fdef.lineno < loop.lineno):
            fix = self._hoist(ctx, call, loop, name)
        ctx.report(self, call, fix=fix, wrapper=wrapper, function=name)

    def _hoist(self, ctx: Context, call: ast.Call, loop: ast.stmt, name: str) -> Fix | None:
        new = f"{name}_jit"
        if re.search(rf"\b{re.escape(new)}\b", ctx.text):
            return None
        base = call.func
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in ctx.info.module_aliases \
                or ctx.info.module_assign_count.get(base.id, 0):
            return None  # `jax` imported inside the function (maybe inside the loop): not surely bound before it
        line = ctx.source.line(loop.lineno)
        indent = line[:ctx.char_col(loop.lineno, loop.col_offset)]
        if indent.strip():
            return None  # `if ok: for ...` on one line: no place for a statement before the loop
        whole = ctx.segment(Span(loop, call))
        text = ctx.segment(call)
        if not whole.endswith(text):
            return None
        repl = f"{new} = {text}\n{indent}{whole[:-len(text)]}{new}"
        fix = ctx.edit(self, Span(loop, call), repl, f"Hoist `{text}` out of the loop as `{new}`")
        if len(call.args) > 1 or call.keywords:
            fix.safety = "unsafe"
        return fix


def _module_function(ctx: Context, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module-level def of ``name`` when it is bound exactly once, by that def."""
    info = ctx.info
    if info.module_assign_count.get(name, 0) or name in info.reassigned_in_functions or name in info.aliases:
        return None
    found = [s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
             and s.name == name]
    if len(found) != 1 or isinstance(found[0], ast.ClassDef):
        return None
    return found[0]


def _enclosing_loop(ctx: Context) -> ast.stmt | None:
    """The innermost ``for``/``while`` statement of this frame whose body holds the node, if no
    comprehension or function comes first."""
    parents = ctx.parents
    for k in range(len(parents) - 1, -1, -1):
        p = parents[k]
        if isinstance(p, _SCOPES) or isinstance(p, _COMPREHENSIONS):
            return None
        if isinstance(p, (ast.For, ast.AsyncFor, ast.While)) and k + 1 < len(parents) and parents[k + 1] in p.body:
            return p
    return None
