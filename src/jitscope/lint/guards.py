"""Paths the tracing model narrows: branches that run only on concrete values, and compile-time evaluation.

``if isinstance(x, jax.core.Tracer): return ...`` leaves ``x`` concrete after the ``if``;
``if not isinstance(x, Tracer): <Python on x>`` runs that body only eagerly; ``isinstance(x,
np.ndarray)`` or ``(int, float)`` is True only for values that are not tracers. Inside
``with jax.ensure_compile_time_eval():`` jnp on non-tracer values computes concrete values
(tests/test_jaxmodel.py). The tables live in ``jaxmodel/values.py`` and ``jaxmodel/known.py``.
"""

from __future__ import annotations

import ast

from ..jaxmodel import known, values


def tracer_guard(ctx, test: ast.AST) -> tuple[list[str], bool] | None:
    """(names, True) if ``test`` holds exactly when those names are tracers, (names, False) if it holds
    exactly when they are concrete; None when ``test`` says nothing about tracers."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = tracer_guard(ctx, test.operand)
        return (inner[0], not inner[1]) if inner is not None else None
    if not isinstance(test, ast.Call) or not test.args:
        return None
    q = ctx.resolve(test.func)
    if q in values.CONCRETE_PREDICATES and isinstance(test.args[0], ast.Name):
        return [test.args[0].id], False
    if q != "isinstance" or len(test.args) != 2 or not isinstance(test.args[0], ast.Name):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = [ctx.resolve(k) or "" for k in kinds]
    if names and all(n.rpartition(".")[2].endswith(values.TRACER_TYPE_SUFFIX) for n in names):
        return [test.args[0].id], True
    if names and all(n in values.CONCRETE_TYPES for n in names):
        return [test.args[0].id], False
    return None


def container_guard(ctx, test: ast.AST) -> tuple[list[str], bool] | None:
    """(names, True) if ``test`` holds only when those names are Python containers (``isinstance(x, (tuple,
    list))``, ``isinstance(x, dict)``, also as one term of an ``and``), (names, False) if it fails only when they
    are (``not isinstance(...)``, also as one term of an ``or``); None otherwise.
    A container of tracers is not a tracer: under that branch only its leaves are traced."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = container_guard(ctx, test.operand)
        return (inner[0], not inner[1]) if inner is not None else None
    if isinstance(test, ast.BoolOp):  # `isinstance(xs, Sequence) and len(xs) > 0`: true only for a container
        want = isinstance(test.op, ast.And)  # an `or` of `not isinstance(...)`: false only for a container
        hit = next((g for g in (container_guard(ctx, v) for v in test.values) if g is not None and g[1] is want), None)
        return hit
    if not (isinstance(test, ast.Call) and len(test.args) == 2 and isinstance(test.args[0], ast.Name)
            and ctx.resolve(test.func) == "isinstance"):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = [ctx.resolve(k) or "" for k in kinds]
    if names and all(n in values.CONTAINER_TYPES for n in names):
        return [test.args[0].id], True
    return None


def as_container(ctx, names: list[str]) -> list[tuple[object, str, bool, bool]]:
    """Make ``names`` Python containers of traced leaves in the frames that bind them (``unbox`` undoes it)."""
    fresh = [n for n in names if n not in getattr(ctx._local_frame(n), "pytrees", ())]
    saved = forget(ctx, fresh)
    for f, name, _, _ in saved:
        f.pytrees.add(name)  # type: ignore[attr-defined]
        f.arrays.discard(name)  # type: ignore[attr-defined]
    return saved


def unbox(saved: list[tuple[object, str, bool, bool]]) -> None:
    """Undo ``as_container``."""
    for f, name, _, array in saved:
        f.pytrees.discard(name)  # type: ignore[attr-defined]
        if array:
            f.arrays.add(name)  # type: ignore[attr-defined]
    restore(saved)


def dead_branch(ctx, test: ast.AST) -> bool | None:
    """True if the body of ``if test:`` never runs on the ways this function is traced, False if its
    ``else`` never does, None if unknown: ``p is None`` / ``p is not None`` on a parameter that every
    recorded traced call passes a value other than ``None`` (the call graph's ``not_none``)."""
    f = ctx.frame
    if not f.not_none or not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right = test.left, test.comparators[0]
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Constant) and right.value is None):
        return None
    if left.id not in f.not_none or left.id in f.bound:
        return None
    if isinstance(test.ops[0], ast.Is):
        return True
    if isinstance(test.ops[0], ast.IsNot):
        return False
    return None


_BLOCKS = ("body", "orelse", "finalbody")
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def unreachable(chain: list[ast.AST]) -> bool:
    """Is the node that ends ``chain`` (its ancestors, outermost first, then itself) after a ``return``/``raise``/
    ``continue``/``break`` of its own block or of a block around it, within its function? Python never runs
    that code, so JAX never traces it."""
    for k in range(len(chain) - 2, -1, -1):
        holder, child = chain[k], chain[k + 1]
        for field in _BLOCKS:
            block = getattr(holder, field, None)
            if isinstance(block, list) and _after_exit(block, child):
                return True
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
    return False


def _after_exit(block: list, child: ast.AST) -> bool:
    exited = False
    for stmt in block:
        if stmt is child:
            return exited
        exited = exited or isinstance(stmt, _EXITS)
    return False  # `child` is not a statement of this block


def leaves(body: list[ast.stmt]) -> bool:
    """Does ``body`` always leave the enclosing block (ends with return/raise/continue/break)?"""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def compile_time_eval(ctx, node: ast.With | ast.AsyncWith) -> bool:
    """Is ``node`` a ``with jax.ensure_compile_time_eval():`` block?"""
    for item in node.items:
        e = item.context_expr
        if isinstance(e, ast.Call) and ctx.resolve(e.func) in known.CONTEXTS:
            return True
    return False


def forget(ctx, names: list[str]) -> list[tuple[object, str, bool, bool]]:
    """Make ``names`` concrete in the frames that bind them; returns what to restore with ``restore``."""
    saved = []
    for name in names:
        f = ctx._local_frame(name)
        if f is not None and name in f.traced_names:
            saved.append((f, name, name in f.must, name in f.arrays))
            f.traced_names.discard(name)
            f.must.discard(name)
    return saved


def restore(saved: list[tuple[object, str, bool, bool]]) -> None:
    for f, name, must, _ in saved:
        f.traced_names.add(name)  # type: ignore[attr-defined]
        if must:
            f.must.add(name)  # type: ignore[attr-defined]
