"""JS614 pytree-round-trip."""

from __future__ import annotations

import ast

from ..context import Context
from ..pytree_roundtrip import mismatches, pair_at
from ..rule import Rule


class PytreeRoundTrip(Rule):
    """A pytree whose unflatten does not rebuild what its flatten took apart.

    ## What it does
    For a class registered with ``@jax.tree_util.register_pytree_node_class`` (or
    ``register_pytree_node(Cls, flatten, unflatten)`` with functions of the module), follows each child
    and aux item from the attribute ``tree_flatten`` takes it from (``self.hi``) to the attribute it
    becomes in the object ``tree_unflatten`` builds (the ``__init__`` parameter it is passed to, and the
    attribute that parameter is stored in). Flags:

    - a value that lands in another attribute (``cls(*children, *aux)`` when ``__init__`` takes the aux
      item between two children): an ``error``;
    - an unpacking of the children (or aux items) of another length than the flatten returns
      (``a, b = children`` for three children): an ``error``, ValueError at every unflatten;
    - a child the unflatten never passes on (``a, b = children; return cls(a)``): a ``warning``.

    Only plain code is followed: a child that is not ``self.x``, an ``__init__`` that computes rather
    than stores, or children handed on whole to a helper make no claim.

    ## Why is this bad?
    Every transformation takes its pytree arguments apart and builds them again with the unflatten,
    inside the trace and for its outputs: ``jax.jit(lambda b: b)(b)`` is ``unflatten(aux, children)``.
    With the values moved, the function sees ``b.hi`` holding what was ``b.n`` (checked under real
    ``jax.jit``: no error, a wrong result, or a tracer leaking into the metadata); a wrong unpacking
    raises at the first call; a dropped child comes back as whatever ``__init__`` defaults it to.
    Eager code never unflattens, so tests without jit pass.

    ## Example
    ```python
    @jax.tree_util.register_pytree_node_class
    class Box:
        def __init__(self, lo, n, hi):
            self.lo, self.n, self.hi = lo, n, hi
        def tree_flatten(self):
            return (self.lo, self.hi), (self.n,)
        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children, *aux)       # hi lands in `n`, n in `hi`
    ```

    ## Use instead
    ```python
        @classmethod
        def tree_unflatten(cls, aux, children):
            lo, hi = children
            return cls(lo, aux[0], hi)
    ```

    ## Fix safety
    No fix is offered: the order the program meant is for its author to say.
    """

    code = "JS614"
    name = "pytree-round-trip"
    message = "`{cls}` does not survive a transformation: {detail}; {consequence}"
    severity = "error"
    confidence = "certain"
    nodes = (ast.ClassDef, ast.Expr)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        pair = pair_at(ctx, node)
        if pair is None:
            return
        found = mismatches(ctx, pair)
        moved = [m for m in found if m.what == "moved"]
        if moved:  # one finding for the unflatten's call, naming every value that moves
            ctx.report(self, moved[0].node, cls=pair.cls.name, detail="; ".join(m.detail for m in moved),
                       consequence=("every jit/vmap/grad/scan of it rebuilds it with these values in the wrong "
                                    "attributes (no error: wrong results); pass each value to its own parameter"),
                       what="moved", source=",".join(m.source for m in moved), target=",".join(m.target for m in moved))
        for m in found:
            if m.what == "count":
                ctx.report(self, m.node, cls=pair.cls.name, detail=m.detail, what=m.what, source=m.source,
                           target=m.target, consequence="the unflatten raises ValueError at the first transformation of it")
            elif m.what == "dropped":
                ctx.report(self, m.node, severity="warning", cls=pair.cls.name, detail=m.detail, what=m.what,
                           source=m.source, target=m.target,
                           consequence=("the rebuilt object loses it (it gets `__init__`'s default); pass it on, "
                                        "or make it aux data if it is not an array"))
