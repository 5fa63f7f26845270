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

Python runs **one** of the two branches of an ``if``/``else`` (an ``elif`` chain is nested ones), so the
``else`` starts from what held before the ``if``, not from what the ``if`` branch bound (``visit_if_else``)::

    if isinstance(bins, int):
        bins = jnp.arange(bins)      # traced from here on, in this branch only
    elif isinstance(bins, tuple):
        if bins[0] != 0:             # `bins` is still the caller's (static) tuple here
            raise ValueError(bins)

After the ``if``, a name may hold a traced value (or mask) where it did at the end of either branch that falls
through, and must hold an abstract tracer (or an array) only where it did at the end of both.

An ``if`` with no ``else`` has an empty second path: after it, a name must hold an abstract tracer only where it
did both before the ``if`` and at the end of its body (``if flag: n = jnp.asarray(n)`` leaves a static ``n`` on
the other path, so ``if n > 0`` after it is a warning, not an error). Its ``arrays`` are left as the body left
them: JS601 reads them as "a JAX array on some path" and checks the host-array paths itself.
"""

from __future__ import annotations

import ast

# The frame's per-name value facts (lint/context.py Frame) a binding changes.
_FACTS = ("traced_names", "masks", "arrays", "must", "elements", "containers", "pytrees")


# Which join each fact takes after an `if`/`else`: "may" facts hold where either branch left them, "must"
# facts only where both did. The others keep the order of the walk (the `else` applied over the `if`).
_MAY = ("traced_names", "masks")
_MUST = ("must", "arrays")


def visit_if_else(visitor, body: list[ast.stmt], orelse: list[ast.stmt]) -> None:
    """Visit both branches of an ``if`` as alternatives: the ``else`` from the facts before the ``if``; after
    it, the join of the branches that fall through (module docstring)."""
    if not orelse:  # an `if` without `else` is an `if` with an empty `else`: the same join (module docstring)
        f = visitor.ctx.frame
        before = {name: set(getattr(f, name)) for name in _MAY + ("must",)}
        visit_branch(visitor, body)
        if not exits(body):
            for name in _MAY:
                getattr(f, name).update(before[name])
            f.must.intersection_update(before["must"])
        return
    alternatives(visitor, body, orelse, lambda: visit_branch(visitor, body), lambda: visit_branch(visitor, orelse))


def alternatives(visitor, body: list[ast.stmt], orelse: list[ast.stmt], run_body, run_else) -> None:
    """Run ``run_body`` then ``run_else`` (each visits its block, narrowed as the caller needs) as the two
    alternatives of one ``if``: the second starts from the value facts before the first, and after both the
    frame holds their join (module docstring)."""
    f = visitor.ctx.frame
    before = {name: set(getattr(f, name)) for name in _MAY + _MUST}
    run_body()
    after_body = {name: set(getattr(f, name)) for name in _MAY + _MUST}
    _put(f, before)
    run_else()
    if exits(body):
        return  # only the `else` reaches the code after the `if`
    if exits(orelse):
        _put(f, after_body)  # only the `if` branch does
        return
    for name in _MAY:
        getattr(f, name).update(after_body[name])
    for name in _MUST:
        getattr(f, name).intersection_update(after_body[name])


def _put(frame, facts: dict[str, set[str]]) -> None:
    for name, names in facts.items():
        current = getattr(frame, name)
        current.clear()
        current.update(names)


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
