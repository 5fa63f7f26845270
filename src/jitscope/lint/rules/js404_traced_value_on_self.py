"""JS404 traced-value-on-self."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import trace_time_effect_expected

# Methods that build the object: an object made inside the trace dies with it.
BUILDERS = frozenset({"__init__", "__post_init__", "__new__", "__setattr__", "setup", "tree_unflatten",
                       "__set_state__", "__setstate__", "replace"})
_STORES = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "appendleft"})


class TracedValueOnSelf(Rule):
    """A traced value stored on ``self`` (an attribute, or a container held by one) inside traced code.

    ## What it does
    Flags ``self.x = v``, ``self.x += v``, ``self.cache[k] = v`` and ``self.cache.update(...)`` /
    ``.append(...)`` statements in a traced method when ``v`` is a traced value and ``self`` is an
    instance of a plain Python class (no base, or only bases of the same kind defined in the
    module): an object that was not created in the trace and outlives it (a module-level instance whose
    method traced code calls, ``tracker.record(y)``, is one). Constructors
    (``__init__``, ``__post_init__``, ``setup``, ``tree_unflatten``) are not flagged, nor are
    classes with a base from a library (an ``nnx.Module`` keeps its state through ``nnx.jit``;
    equinox and Flax linen modules are frozen), test files and functions named for tracing.

    ## Why is this bad?
    The method runs once, while jit traces: the object keeps a tracer. A later eager read
    raises ``UnexpectedTracerError`` (or, for a cache, hands the next trace a tracer of the
    old one), and later calls served from jit's cache never update it (checked under real
    ``jax.jit``).

    ## Example
    ```python
    class Model:
        def loss(self, params, x):
            self.last = predict(params, x)
            return self.last.mean()

    jax.jit(model.loss)(params, x)
    ```

    ## Use instead
    ```python
    class Model:
        def loss(self, params, x):
            last = predict(params, x)
            return last.mean(), last   # return what you want to keep
    ```

    ## Fix safety
    No fix is offered: which values may be traced, or where the state should go, is the program's choice.
    """

    code = "JS404"
    name = "traced-value-on-self"
    message = ("`{expr}` stores a traced value on `self` inside traced method `{function}`: it runs once at trace "
               "time and the object keeps a tracer that outlives the trace; return the value instead")
    severity = "warning"
    requires = "staged"
    nodes = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)
    calls = tuple(f".{m}" for m in _STORES)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            parent = ctx.parents[-1] if ctx.parents else None
            if not (isinstance(func, ast.Attribute) and func.attr in _STORES and _self_attr(func.value)
                    and isinstance(parent, ast.Expr)):
                return
            if not any(ctx.is_traced(a) or holds_traced(ctx, a) for a in node.args):
                return
            where, expr = func.value, f"{ctx.segment(func.value)}.{func.attr}(...)"
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            if value is None or not (ctx.is_traced(value) or (
                    isinstance(node, ast.AugAssign) and ctx.is_traced(node.target))):
                return
            where = next((t for t in targets if _self_attr(t) or (
                isinstance(t, ast.Subscript) and _self_attr(t.value))), None)
            if where is None:
                return
            expr = ctx.segment(where) + (" = ..." if not isinstance(node, ast.AugAssign) else " += ...")
        fn = ctx.frame.node
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name in BUILDERS:
            return
        if not fn.args.args or fn.args.args[0].arg != "self" or ctx._local_frame("self") is not ctx.frame:
            return
        if "self" in ctx.frame.bound or not plain_class(ctx, enclosing_class(ctx)):
            return
        if trace_time_effect_expected(ctx, _self_attr(where)):
            return
        ctx.report(self, node, expr=expr, function=fn.name)


def _self_attr(node: ast.AST) -> str | None:
    """``x`` of ``self.x``, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def holds_traced(ctx: Context, node: ast.AST) -> bool:
    """A dict or list display holding a traced value (``self.cache.update({"k": v})``)."""
    if isinstance(node, ast.Dict):
        return any(ctx.is_traced(v) for v in node.values)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return any(ctx.is_traced(v) for v in node.elts)
    return False


def enclosing_class(ctx: Context) -> ast.ClassDef | None:
    """The class whose body defines the current method directly."""
    fn = ctx.frame.node
    for p in reversed(ctx.parents):
        if isinstance(p, ast.ClassDef):
            return p if fn in p.body else None
    # a method the call graph reached is walked without its class around it: the module's classes hold it
    return next((c for c in ctx.tree.body if isinstance(c, ast.ClassDef) and fn in c.body), None)


def plain_class(ctx: Context, cls: ast.ClassDef | None, depth: int = 0) -> bool:
    """A class with no base but ``object``, or only such classes of this module: nothing of a library
    (a module system that keeps state, a frozen dataclass) decides what an attribute store does."""
    if cls is None or depth > 8 or cls.keywords:
        return False
    if any(isinstance(d, ast.Name) and d.id == "dataclass" or isinstance(d, ast.Call) for d in cls.decorator_list):
        return False  # `@dataclass(frozen=True)`, `@struct.dataclass`, `@register_pytree_node_class`
    if cls.decorator_list:
        return False
    for b in cls.bases:
        if isinstance(b, ast.Name) and b.id == "object":
            continue
        if not isinstance(b, ast.Name):
            return False
        local = [s for s in ctx.tree.body if isinstance(s, ast.ClassDef) and s.name == b.id]
        if len(local) != 1 or not plain_class(ctx, local[0], depth + 1):
            return False
    return True
