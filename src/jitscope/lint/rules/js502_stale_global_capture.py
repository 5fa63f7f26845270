"""JS502 stale-global-capture."""

from __future__ import annotations

import ast

from .. import facts, global_writes
from ..context import ARRAY_NAMESPACES, Context
from ..rule import Rule
from ..scope import MUTATORS, ModuleInfo
from ._util import once_per_function


class StaleGlobalCapture(Rule):
    """A module-level variable that changes (reassigned, or a mutable container) read inside a traced function.

    ## What it does
    Flags reads, inside a traced function, of a module-level name that is assigned again
    after a module-level call of one of the module's functions (a script that runs, then
    changes the value), assigned through ``global`` in some function, or bound to a list,
    dict or set that the module mutates somewhere (``.append``, ``.update``, ``d[k] = v``).
    A memo a function fills once (every write under ``if _TABLE is None:``) takes one value and keeps it, and
    is not flagged either. A constant settled at import time (``N = 3`` then ``N = N * 2``, or one binding per
    branch of an ``if``) is not flagged: it never changes once anything has run. Nor is a
    rebinding to the same constant (``EMPTY = -1`` then ``EMPTY = jnp.int32(-1)``), one made
    before the reading function is defined, or one after which the reading function cannot run
    any more (a later notebook cell redefines it without calling the old one). Registries read
    for dispatch (``RULES[prim](x)``, ``type(x) in TYPES``, a ``*registry*`` dict filled at
    import) are not values baked into the graph and are not flagged. Trace-time bookkeeping is ``info``: a read
    that only names things (joined or formatted into a string: ``"/".join(SCOPES)``, ``"%d" % COUNTS[k]``), or a
    container the reading function itself keeps while tracing, storing Python values only (``i = SEEN[k];
    SEEN[k] += 1``), unless the read value goes straight into array math (``x * HITS[k]``).

    ## Why is this bad?
    The value is read once, at trace time, and frozen into the compiled graph. When the
    global changes later, the jitted function keeps computing with the old value, silently,
    until an unrelated change (a new input shape) forces a retrace and the new value
    appears.

    ## Example
    ```python
    g = 0.0

    @jax.jit
    def f(x):
        return x + g

    g = 10.0
    f(1.0)   # 1.0, not 11.0
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(x, g):
        return x + g
    ```
    or make it a true constant (assign it once, in UPPER_CASE) if it never changes.

    ## Fix safety
    No fix is offered.
    """

    code = "JS502"
    name = "stale-global-capture"
    message = "global `{var}` is {why}: jit freezes its value at trace time and later changes are ignored; pass '{var}' as an argument"
    severity = "warning"
    requires = "staged"
    nodes = (ast.Name,)

    def names(self, info: ModuleInfo) -> frozenset[str]:
        """The module-level names that change: what ``check`` can report (a superset)."""
        reassigned = {n for n, count in info.module_assign_count.items() if count > 1}
        return frozenset(info.reassigned_in_functions | reassigned | (set(info.module_mutables) & info.mutated_names))

    def check(self, node: ast.AST, ctx: Context) -> None:
        name: ast.Name = node  # type: ignore[assignment]
        var = name.id
        info = ctx.info
        if not isinstance(name.ctx, ast.Load) or var in info.module_defs or var in info.aliases:
            return
        if var in info.module_arrays and "JS501" in ctx.enabled:
            return  # reported as a global array capture
        parent = ctx.parents[-1] if ctx.parents else None
        if isinstance(parent, ast.Attribute) and parent.attr in MUTATORS:
            return  # `hist.append(x)`: JS403 reports the mutation
        if isinstance(parent, ast.Subscript) and not isinstance(parent.ctx, ast.Load):
            return  # `cache[k] = v`: JS403 reports the mutation
        grand = ctx.parents[-2] if len(ctx.parents) > 1 else None
        if isinstance(parent, ast.Subscript) and parent.value is name and isinstance(grand, ast.Call) \
                and grand.func is parent:
            return  # `RULES[prim](*args)`: a registry of functions, filled at import, dispatched at trace time
        if "registry" in var.lower() and var in info.module_mutables:
            return  # `_inverse_registry[prim]`: filled by `register_*` calls at import, read for dispatch
        if isinstance(parent, ast.Compare) and name in parent.comparators and all(
                isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
            return  # `type(x) in REGISTERED_TYPES`: a registry consulted for dispatch, not a value in the graph
        if var in info.reassigned_in_functions and var in global_writes.initialised_once(ctx) \
                and not info.rebound_after_call(var, ctx.frames[1].node if len(ctx.frames) > 1 else None,
                                                facts.is_script(ctx), lambda line: _read_after(ctx, var, line)):
            return  # `if _TABLE is None: _TABLE = build()`: set once, never changed after (lint/global_writes.py)
        if var in info.reassigned_in_functions:
            why = "reassigned with `global` elsewhere"
        elif info.rebound_after_call(var, ctx.frames[1].node if len(ctx.frames) > 1 else None, facts.is_script(ctx),
                                     lambda line: _read_after(ctx, var, line)):
            why = "reassigned at module level after a call"
        elif var in info.module_mutables and var in info.mutated_names:
            why = "a mutable container that is mutated elsewhere"
        else:
            return
        if ctx.is_module_global(var) and once_per_function(ctx, self.code, var):
            record = _trace_time_record(ctx, name)
            if record:
                msg = (f"global `{var}` is {why}, and {record}: it is read while tracing, not on every call "
                       f"(trace-time bookkeeping, if meant; pass it as an argument if the compiled program must "
                       f"follow its later changes)")
                ctx.report(self, name, msg, severity="info", var=var, why=why)
                return
            ctx.report(self, name, var=var, why=why)


def _trace_time_record(ctx: Context, name: ast.Name) -> str:
    """Why the read of ``name`` is trace-time bookkeeping, not a value baked into the graph (docs/lint.md, JS502),
    or "": the read only names things (formatted or joined into a string: a summary's name, a scope prefix), or
    the traced function itself keeps the container, storing Python values only (a per-name counter it bumps)."""
    value: ast.AST = name
    i = len(ctx.parents) - 1
    while i >= 0 and isinstance(ctx.parents[i], ast.Subscript) and ctx.parents[i].value is value:  # type: ignore[attr-defined]
        value = ctx.parents[i]  # `counts[name]`: the item read
        i -= 1
    parent = ctx.parents[i] if i >= 0 else None
    if isinstance(parent, ast.Tuple) and i > 0:
        value, parent = parent, ctx.parents[i - 1]  # `"%s_%d" % (prefix, counts[k])`
    if isinstance(parent, ast.FormattedValue) or (
            isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mod) and parent.right is value
            and isinstance(parent.left, (ast.JoinedStr, ast.Constant)) and isinstance(getattr(parent.left, "value", ""), str)) or (
            isinstance(parent, ast.Call) and value in parent.args and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in ("join", "format") and isinstance(parent.func.value, ast.Constant)
            and isinstance(parent.func.value.value, str)):
        return "it is read here only to build a name (a string)"
    fn = ctx.frame.node
    if fn is None or _array_math(ctx, parent, value):
        return ""  # `x * hits["n"]`: the count goes into the graph, frozen at its trace-time value
    var = name.id
    stores: list[ast.AST] = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MUTATORS \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == var:
            stores += [*n.args, *(k.value for k in n.keywords)]
        elif isinstance(n, (ast.Assign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == var for t in targets):
                stores.append(n.value)
        else:
            continue
    if stores and all(_python_value(ctx, v) for v in stores):
        return f"`{ctx.frame.name}` itself keeps it while tracing, storing Python values only"
    return ""


def _array_math(ctx: Context, parent: ast.AST | None, value: ast.AST) -> bool:
    """Is the read ``value`` an operand of array math: arithmetic with a traced value, an argument of a jnp/lax
    call or of a traced value's method?"""
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is value else parent.left
        return ctx.is_traced(other)
    if isinstance(parent, ast.Call):
        q = ctx.resolve(parent.func) or ""
        return q.startswith(ARRAY_NAMESPACES) or (
            isinstance(parent.func, ast.Attribute) and ctx.is_traced(parent.func.value))
    return False


def _python_value(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` surely a Python value (a literal, a string built here, arithmetic on those), never a tracer?"""
    if isinstance(node, ast.Constant) or isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _python_value(ctx, node.left) and _python_value(ctx, node.right)
    if isinstance(node, ast.UnaryOp):
        return _python_value(ctx, node.operand)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_python_value(ctx, e) for e in node.elts)
    return False


def _read_after(ctx: Context, var: str, line: int) -> bool:
    """Does code other than the function being checked read ``var`` after ``line``?"""
    reader = ctx.frames[1].node if len(ctx.frames) > 1 else None
    skip = set(ast.walk(reader)) if reader is not None else set()
    return any(isinstance(n, ast.Name) and n.id == var and isinstance(n.ctx, ast.Load) and n.lineno > line
               and n not in skip for n in ast.walk(ctx.tree))
