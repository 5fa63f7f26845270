"""JS609 jnp-in-static-equality."""

from __future__ import annotations

import ast

from ...jaxmodel.values import DTYPE_PREDICATES
from ..astutil import own_nodes
from ..context import Context
from ..rule import Rule

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_METADATA = frozenset({"shape", "dtype", "ndim", "size"})  # read from an array without staging an operation


class JnpInStaticEquality(Rule):
    """``__eq__`` or ``__hash__`` of a hashable class computing with ``jax.numpy``.

    ## What it does
    Flags a ``jax.numpy``/``jax.lax`` call (one that makes an array, not a dtype or shape query) in the
    ``__eq__`` or ``__hash__`` of a class that defines ``__hash__``: a class meant to be hashed and compared
    by value, which in JAX code means a static argument, pytree metadata (aux data, a static field) or a
    cache key.

    ## Why is this bad?
    JAX looks static arguments and pytree metadata up by ``hash`` and ``==``: jit's cache on every call, and
    ``scan``/``while_loop``/``cond`` when they check that a carry or the branches keep one structure. When
    that lookup happens while tracing (a jitted function called from another one, a carry of ``scan``
    inside ``jit``), every ``jnp`` operation is staged into the trace, even on Python numbers: ``jnp.allclose``
    returns a tracer, and ``bool()`` of it (``not``, ``and``, ``if``, or JAX using the result of ``__eq__``)
    raises, as does hashing a tracer. JAX reports it as ``ValueError`` ("static arguments should be comparable
    using __eq__" / "Non-hashable static arguments are not supported" / "Exception raised while checking
    equality of metadata fields of pytree"); checked under real ``jax.jit`` and ``lax.scan``. The same
    lookup outside any trace works, so the bug appears only once the code is nested.

    ## Example
    ```python
    class Plane:
        def __hash__(self):
            return hash((self.z, tuple(self.normal)))
        def __eq__(self, other):
            return bool(jnp.allclose(self.z, other.z))
    ```

    ## Use instead
    ```python
        def __eq__(self, other):
            return bool(np.allclose(self.z, other.z))   # NumPy runs on the host, inside a trace too
    ```

    ## Fix safety
    No fix is offered: the NumPy spelling of the comparison is the program's choice.
    """

    code = "JS609"
    name = "jnp-in-static-equality"
    message = ("`{method}` of `{cls}` calls `{call}`: JAX hashes and compares static arguments and pytree metadata "
               "with `hash`/`==`, and while tracing (a jitted function called from another, a `scan`/`cond` "
               "carry inside jit) `{call}` returns a tracer, so `{method}` raises; compute it with NumPy on "
               "host values (`np.allclose`, `np.asarray`)")
    severity = "warning"
    confidence = "likely"
    nodes = (ast.ClassDef,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        cls: ast.ClassDef = node  # type: ignore[assignment]
        methods = {s.name: s for s in cls.body if isinstance(s, _DEFS) and s.name in ("__eq__", "__hash__")}
        if "__hash__" not in methods:
            return  # not hashable by value (`__eq__` alone sets `__hash__ = None`): an array-like class's `==`
        for name in ("__eq__", "__hash__"):
            method = methods.get(name)
            call = method is not None and _first_array_call(ctx, method)
            if call:
                q = (ctx.resolve(call.func) or "").replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")
                ctx.report(self, call, method=name, cls=cls.name, call=q)
                return


def _first_array_call(ctx: Context, method: ast.AST) -> ast.Call | None:
    """The first call in ``method``'s own body (not a nested def or lambda) of a ``jnp``/``lax`` function that
    makes an array, whose result is not only asked for its shape or dtype."""
    shape_only: set[ast.AST] = set()
    for n in own_nodes(*method.body):  # source order: an attribute comes before the call it reads
        if isinstance(n, ast.Attribute) and n.attr in _METADATA:
            shape_only.add(n.value)
        elif isinstance(n, ast.Call) and n not in shape_only:
            q = ctx.resolve(n.func) or ""
            if q.startswith(("jax.numpy.", "jax.lax.")) and q not in DTYPE_PREDICATES:
                return n
    return None
