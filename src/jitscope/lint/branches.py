"""What a branch that always returns or raises binds does not reach the code after its ``if``.

The visitor walks a function's statements in order and keeps, per frame, which names hold traced values,
arrays, masks, containers. Python runs one branch of an ``if``: a branch whose last statement returns or
raises (or is itself an ``if`` both of whose branches do) never falls through, so its bindings reach only
the rest of that branch. In::

    out = np.zeros(n)
    if use_jax:
        out = jnp.asarray(out)
        return out * 2
    out[0] = 1.0          # `out` is the NumPy array here

the rebinding to a JAX array must not make ``out`` an array after the ``if``. ``visit_branch`` visits such a
branch and puts the frame's value facts back as they were before it. ``continue``/``break`` branches are left
alone: their bindings reach the next iteration or the code after the loop.
"""

from __future__ import annotations

import ast

# The frame's per-name value facts (lint/context.py Frame) a binding changes.
_FACTS = ("traced_names", "masks", "arrays", "must", "elements", "containers", "pytrees")


def exits(body: list[ast.stmt]) -> bool:
    """Does ``body`` never fall through: its last statement returns or raises, or is an ``if`` whose branches
    both do?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and exits(last.body) and exits(last.orelse)


def visit_branch(visitor, block: list[ast.stmt]) -> None:
    """Visit ``block``; when it never falls through, what it bound is undone after it."""
    if not exits(block):
        visitor.visit_all(block)
        return
    f = visitor.ctx.frame
    saved = [(name, set(getattr(f, name))) for name in _FACTS]
    try:
        visitor.visit_all(block)
    finally:
        for name, before in saved:
            facts = getattr(f, name)
            facts.clear()
            facts.update(before)
