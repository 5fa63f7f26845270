"""JS406 cache-filled-in-trace."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._caches import CACHED_FUNCTIONS, CACHED_PROPERTIES, caching_descriptor, computes_with_jax, decorated_with
from .js404_traced_value_on_self import BUILDERS, enclosing_class, plain_class


class CacheFilledInTrace(Rule):
    """Traced code fills a cache that outlives the trace with a value JAX computed there.

    ## What it does
    Flags, inside a traced function, a call to a function of the module decorated with
    ``functools.lru_cache``/``functools.cache`` whose body computes with JAX (``jnp``, ``lax``,
    ``jax.random``, ... outside ``jax.ensure_compile_time_eval()``), and a read of ``self.p`` in a
    traced method when ``p`` is a ``functools.cached_property`` (or a caching descriptor of the module,
    see JS405) of the class that computes with JAX and ``self`` is an instance of a plain Python class
    (an object that was not made in the trace). Calls with a traced argument are left alone (they fail
    at once: a tracer is unhashable), and so are caches of functions that compute with NumPy or only
    ask shapes and dtypes.

    ## Why is this bad?
    If this read is the first one, the cache stores the tracer of this trace: the next trace (a new
    shape, another jitted function) gets a tracer of a finished trace and raises
    ``UnexpectedTracerError``, and so does an eager use (checked under real ``jax.jit``). Whether the
    first read happens under jit depends on the order the program runs in: the finding is ``likely``.

    ## Example
    ```python
    @functools.lru_cache
    def table(n):
        return jnp.arange(n) ** 2

    @jax.jit
    def f(x):
        return x + table(3)
    ```

    ## Use instead
    ```python
    @functools.lru_cache
    def table(n):
        return np.arange(n) ** 2      # a NumPy constant: nothing of the trace is kept
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS406"
    name = "cache-filled-in-trace"
    message = ("{what} inside traced function `{function}` caches a value JAX computes there: the cache keeps "
               "a tracer that outlives the trace if this is the first use; compute it with NumPy, or outside jit")
    severity = "warning"
    requires = "staged"
    nodes = (ast.Call, ast.Attribute)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            if not isinstance(func, ast.Name) or func.id not in ctx.info.module_defs or not ctx.is_module_global(func.id):
                return
            fn = _module_def(ctx, func.id)
            if fn is None or not decorated_with(ctx, fn, CACHED_FUNCTIONS) or not computes_with_jax(ctx, fn):
                return
            if any(ctx.is_traced(a) for a in node.args) or any(ctx.is_traced(k.value) for k in node.keywords):
                return  # fails at once (a tracer is unhashable): another mistake, loud
            what = f"`{func.id}(...)` (a `functools` cache)"
        else:
            if not (isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in ctx.info.defs
                    and isinstance(node.ctx, ast.Load)):
                return  # `self.p` where some def of the module is named `p`
            parent = ctx.parents[-1] if ctx.parents else None
            if isinstance(parent, ast.Call) and parent.func is node:
                return
            me = ctx.frame.node
            if not isinstance(me, (ast.FunctionDef, ast.AsyncFunctionDef)) or me.name in BUILDERS:
                return
            if not me.args.args or me.args.args[0].arg != "self" or "self" in ctx.frame.bound:
                return
            cls = enclosing_class(ctx)
            prop = _cached_property(ctx, cls, node.attr) if cls is not None else None
            if prop is None or not plain_class(ctx, cls):
                return
            what = f"reading `self.{node.attr}` (a cached property)"
        ctx.report(self, node, what=what, function=ctx.frame.name)


def _module_def(ctx: Context, name: str) -> ast.FunctionDef | None:
    defs = [s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
    return defs[0] if len(defs) == 1 and isinstance(defs[0], ast.FunctionDef) else None


def _cached_property(ctx: Context, cls: ast.ClassDef, attr: str) -> ast.FunctionDef | None:
    """The method ``attr`` of ``cls`` when a caching descriptor wraps it and its body computes with JAX."""
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == attr and computes_with_jax(ctx, fn):
            if decorated_with(ctx, fn, CACHED_PROPERTIES) or any(_local_descriptor(ctx, d) for d in fn.decorator_list):
                return fn
    return None


def _local_descriptor(ctx: Context, deco: ast.AST) -> bool:
    if not isinstance(deco, ast.Name):
        return False
    cls = [s for s in ctx.tree.body if isinstance(s, ast.ClassDef) and s.name == deco.id]
    return len(cls) == 1 and caching_descriptor(cls[0])
