"""JS106 bitwise-not-on-bool."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ._util import short


class BitwiseNotOnBool(Rule):
    """``~`` applied to a Python ``bool``.

    ## What it does
    Flags ``~flag`` where ``flag`` is a Python ``bool``: the literal ``True``/``False`` or a ``not``
    of Python values (an error), or an attribute of ``self`` declared ``flag: bool = False`` in the
    class (a warning: something could still store an array there). A parameter annotated ``bool`` is
    not flagged: JAX code often annotates boolean arrays that way, and ``~`` is right for those.

    ## Why is this bad?
    On a JAX boolean array ``~`` is logical not; on a Python ``bool`` it is the integer bitwise not:
    ``~False`` is ``-1`` and ``~True`` is ``-2``, both truthy. ``(err > tol) & ~self.stop_early``
    is then an integer array, not a mask: a ``lax.while_loop`` condition built from it is rejected,
    and an unrolled loop never stops (jaxopt's LBFGS shipped this). Python 3.12 deprecates it.

    ## Example
    ```python
    class Solver:
        stop_early: bool = False

        def cond(self, state):
            return (state.error > self.tol) & ~self.stop_early
    ```

    ## Use instead
    ```python
            return (state.error > self.tol) & jnp.logical_not(self.stop_early)
    ```
    or ``not self.stop_early`` when the value is known to be a Python ``bool``.

    ## Fix safety
    No fix is offered: ``not x`` is right for a Python bool, ``jnp.logical_not(x)`` for both, and
    which one the code wants depends on what else may reach it.
    """

    code = "JS106"
    name = "bitwise-not-on-bool"
    message = "`~` on Python bool `{expr}` gives {values}, not its negation; use `not {expr}` or jnp.logical_not"
    severity = "error"
    confidence = "certain"
    nodes = (ast.UnaryOp,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if type(node.op) is not ast.Invert:  # type: ignore[attr-defined]
            return
        operand = node.operand  # type: ignore[attr-defined]
        proof = _python_bool(ctx, operand)
        if proof is None:
            return
        expr = short(ctx, operand)
        ctx.report(self, node, severity=None if proof else "warning", expr=expr, values="-1 or -2")


def _python_bool(ctx: Context, node: ast.AST) -> bool | None:
    """True: certainly a Python bool; False: declared one (an annotation); None: not known to be one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True if not ctx.is_traced(node.operand) else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        cls = next((p for p in reversed(ctx.parents) if isinstance(p, ast.ClassDef)), None)
        for s in cls.body if cls is not None else ():
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == node.attr:
                if _bool_annotation(s.annotation) and s.value is not None and _bool_constant(s.value):
                    return False  # declared `flag: bool = False`: a Python bool unless someone stores an array
    return None


def _bool_annotation(ann: ast.expr) -> bool:
    return isinstance(ann, ast.Name) and ann.id == "bool" or (
        isinstance(ann, ast.Constant) and ann.value == "bool")


def _bool_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)
