"""JS405 caching-descriptor-keeps-tracer."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._caches import cached_method, imports_jax, unguarded_store


class CachingDescriptorKeepsTracer(Rule):
    """A caching descriptor (a ``lazy_property``) stores whatever its method returns on the instance, tracers too.

    ## What it does
    Flags the store in a descriptor's ``__get__(self, instance, owner)`` that caches the value of the
    method it wraps on the instance: ``setattr(instance, name, value)``, ``instance.__dict__[name] =
    value`` or ``vars(instance)[name] = value``, where ``value`` is what calling a function held by the
    descriptor with the instance returned (``self.wrapped(instance)``). Only in modules that import JAX,
    and not when the store is conditional on the value (``if not isinstance(value, jax.core.Tracer):``,
    numpyro's ``if not_jax_tracer(value):``): a cache that refuses tracers cannot keep one.

    ## Why is this bad?
    The first read of the property computes it. When that read happens inside ``jax.jit`` (a jitted
    bound method, a jitted function closing over the object), the method's ``jnp`` operations give a
    tracer, and the descriptor stores the tracer on an object that outlives the trace: the next eager
    read raises ``UnexpectedTracerError``, and a later trace receives a tracer of the old one (checked
    under real ``jax.jit``; ``functools.cached_property`` does the same). Whether a property is ever
    first read under jit is not visible where the descriptor is defined: the finding is ``likely``.

    ## Example
    ```python
    class lazy_property:
        def __init__(self, wrapped):
            self.wrapped = wrapped

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = self.wrapped(instance)
            setattr(instance, self.wrapped.__name__, value)
            return value
    ```

    ## Use instead
    ```python
            value = self.wrapped(instance)
            if not isinstance(value, jax.core.Tracer):  # cache concrete values only
                setattr(instance, self.wrapped.__name__, value)
            return value
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS405"
    name = "caching-descriptor-keeps-tracer"
    message = ("`{expr}` caches what `{method}` returns on the instance, tracers included: a first read "
               "inside jit stores a tracer that outlives the trace; cache only values that are not tracers")
    severity = "warning"
    traced_only = False
    nodes = (ast.Call, ast.Assign)
    calls = ("setattr", "object.__setattr__")

    def check(self, node: ast.AST, ctx: Context) -> None:
        fn = ctx.frame.node
        if not isinstance(fn, ast.FunctionDef) or fn.name != "__get__" or len(fn.args.args) < 2:
            return
        if not any(isinstance(p, ast.ClassDef) and fn in p.body for p in ctx.parents) or not imports_jax(ctx):
            return
        store = unguarded_store(fn, node, ctx.parents)
        if store is not None:
            ctx.report(self, node, expr=ctx.segment(store), method=cached_method(fn, node))
