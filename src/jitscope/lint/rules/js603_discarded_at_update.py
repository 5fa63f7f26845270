"""JS603 discarded-at-update."""

from __future__ import annotations

import ast

from .. import guards
from ..context import Context
from ..rule import Rule
from ..source import LazyPattern

# `x.at[i].<method>(...)` methods that return an updated copy (`get` only reads: discarding it is harmless).
AT_METHODS = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "div", "power", "min", "max",
                        "apply"})
# A module that makes mutable Refs may update them through `ref.at[i].set(v)`, which does write in place.
_REFS = LazyPattern(r"\b(new_ref|mutable_array|empty_ref|freeze)\b|\bRef\b")


class DiscardedAtUpdate(Rule):
    """The result of ``x.at[i].set(v)`` (or ``.add``, ``.multiply``, ...) thrown away.

    ## What it does
    Flags an expression statement ``x.at[i].set(v)`` (likewise ``add``, ``subtract``,
    ``multiply``, ``divide``, ``power``, ``min``, ``max``, ``apply``) whose result is not
    assigned, inside jit or not. It is an error when ``x`` is certainly a JAX array: a local
    name last bound in the same function to a ``jax.numpy``/``lax``/``random`` call or to
    arithmetic on traced values. On any other plain name (a parameter, say) it is a warning,
    since the linter cannot see what the caller passes. Names that look like Refs
    (``*_ref``, ``ref``) and modules that create ``jax.Ref``s or use Pallas are skipped:
    ``ref.at[i].set(v)`` on a Ref does write in place. A statement inside a block that asserts an
    exception (``with pytest.raises(E):``, ``with self.assertRaises(E):``) is not reported: the test runs
    it for the error it raises, and its result was never meant to be kept.

    ## Why is this bad?
    JAX arrays are immutable: ``x.at[i].set(v)`` returns a new array and leaves ``x`` as it
    was. Written as a statement, the update silently never happens: no error, and ``x``
    keeps its old values (checked under real ``jax.jit``).

    ## Example
    ```python
    @jax.jit
    def reset_first(x):
        y = x * 2
        y.at[0].set(0.0)
        return y
    ```

    ## Use instead
    ```python
    @jax.jit
    def reset_first(x):
        y = x * 2
        y = y.at[0].set(0.0)
        return y
    ```

    ## Fix safety
    The fix assigns the result back (``y.at[i].set(v)`` -> ``y = y.at[i].set(v)``). It is
    safe when ``y`` is certainly a JAX array held in a function's local name: the
    statement computed a value and dropped it, so it changed nothing but could raise; the
    fixed statement evaluates the same expression (same exceptions) and only makes ``y``
    hold the update that the statement asked for. Nothing else can observe the rebinding,
    since the name is local and not declared ``global`` or ``nonlocal``. At module level it
    is unsafe (other modules may read the global). On a name that is only probably an
    array (the warning case) it is unsafe too: on a ``jax.Ref`` the original statement
    writes in place and returns nothing, so the assignment would replace the Ref.
    """

    code = "JS603"
    name = "discarded-at-update"
    message = ("result of `{target}.at[...].{method}(...)` is discarded: JAX arrays are immutable, so the update "
               "never happens; assign it: `{target} = {target}.at[...].{method}(...)`")
    severity = "error"
    confidence = "certain"
    fix = "safe"
    nodes = (ast.Expr,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call = node.value  # type: ignore[attr-defined]
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr in AT_METHODS and isinstance(call.func.value, ast.Subscript)):
            return
        at = call.func.value.value
        if not (isinstance(at, ast.Attribute) and at.attr == "at" and isinstance(at.value, ast.Name)):
            return
        var = at.value.id
        if var == "ref" or var.endswith("_ref") or ctx.info.uses_pallas or _makes_refs(ctx):
            return
        if guards.expects_error([*ctx.parents, node]):
            return  # `with pytest.raises(E): q.at[1].power(2)`: run for the error it raises, not for its result
        f = ctx.frame
        local = len(ctx.frames) == 1 or ctx._local_frame(var) is f
        certain = var in f.arrays and var in f.bound and local
        method = call.func.attr
        fix = ctx.edit(self, node, f"{var} = {ctx.segment(call)}", f"Assign the result: `{var} = {var}.at[...]...`")
        if not (certain and f.node is not None and var not in f.declared_global | f.declared_nonlocal):
            fix.safety = "unsafe"  # a module global or a shared name: other code may see the rebinding
        ctx.report(self, node, fix=fix, severity=None if certain else "warning", target=var, method=method)


def _makes_refs(ctx: Context) -> bool:
    return ctx.memo(_mentions_refs)


def _mentions_refs(ctx: Context) -> bool:
    return bool(_REFS.search(ctx.text))
