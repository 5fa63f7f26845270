"""JS601 inplace-array-update."""

from __future__ import annotations

import ast

from ..context import Context
from ..params import container_annotation
from ..rule import Rule
from ._reaching import reaching_values
from ._util import ARRAY_ATTRS as _ARRAY_ATTRS
from ._util import dict_like as _dict_like
from ._util import str_index as _str_index

_AT_METHOD = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power"}


class InplaceArrayUpdate(Rule):
    """In-place item assignment ``x[i] = v`` on a JAX array.

    ## What it does
    Flags ``x[i] = v`` and ``x[i] += v`` where ``x`` is a traced argument of a jitted
    function, or was created in the same function by a ``jax.numpy``/``jax.random``/``lax``
    call, by arithmetic on traced values or by a method of a traced array (inside or outside
    jit). A parameter is counted only when it is indexed with a non-string index and never
    used like a dict (``batch["x"]``, ``batch.items()``, ``"k" in batch``): dict pytrees are
    mutable Python dicts even under jit. Modules that use Pallas are skipped: there ``ref[...] = v`` writes to a mutable Ref.
    Arguments are skipped where they may be a ``jax.Ref`` or ``flax.nnx.Variable`` (annotated so,
    written as ``x[...] = v``, or in a module that uses Refs or ``flax.nnx``): item assignment is
    how those update. An argument with no array use besides the assignment (``x.shape``,
    ``x.at``, ``jnp.f(x)``) may be a list: that finding is a ``warning`` without a fix. A local is not an
    array when the function uses it as a dict, annotates it as a container (``new: Dict[str, Array] = ...``),
    binds it to a dict merge (``params | {"a": 1}``) or to a copy (``.copy()``, ``copy.copy``) of a name used as
    a dict; a copy of a parameter or local with no array use is a ``warning``, as is a local that a NumPy array
    reaches on some path (``out = np.zeros(n)``; ``if use_jax: out = jnp.asarray(out)``; ``out[0] = 1``). A
    rebinding in a branch that returns or raises does not reach the code after it.

    ## Why is this bad?
    JAX arrays are immutable: item assignment raises ``TypeError: JAX arrays are
    immutable``. The functional form ``x.at[i].set(v)`` returns a new array, and under
    jit XLA performs it in place when it can.

    ## Example
    ```python
    @jax.jit
    def reset_first(x):
        x[0] = 0.0
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def reset_first(x):
        x = x.at[0].set(0.0)
        return x
    ```

    ## Fix safety
    The fix (``x[i] = v`` -> ``x = x.at[i].set(v)``, ``x[i] += v`` -> ``x = x.at[i].add(v)``)
    is unsafe: it rebinds ``x`` to a new array, so other references to the old array
    (an alias, a caller's variable) no longer see the update that NumPy code expected.
    """

    code = "JS601"
    name = "inplace-array-update"
    message = "in-place assignment `{target}[...] = ...` on a JAX array (arrays are immutable); use `{target} = {target}.at[...].{method}(...)`"
    severity = "error"
    confidence = "certain"
    fix = "unsafe"
    nodes = (ast.Assign, ast.AugAssign)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                return
            target, method = node.targets[0], "set"
        else:
            target = node.target  # type: ignore[attr-defined]
            method = _AT_METHOD.get(type(node.op))  # type: ignore[attr-defined]
            if method is None:
                return
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return
        var = target.value.id
        f = ctx.frame
        if var not in f.arrays or ctx._local_frame(var) is not f:
            return
        if ctx.info.uses_pallas:
            return  # Pallas kernels write to Refs with `ref[...] = v`: indistinguishable without types
        if _str_index(target.slice):
            return  # `batch["image"] = ...`: a dict pytree, not an array
        argument = var in f.params and var not in f.bound
        if argument:
            if _dict_like(f.node, var) or _container_param(f.node, var):
                return  # a parameter used as a dict (`.items()`, `batch["x"]`, `"k" in batch`) or annotated as one
            if isinstance(target.slice, ast.Constant) and target.slice.value is Ellipsis:
                return  # `ref[...] = v`: the write idiom of a jax.Ref / nnx.Variable
            if _ref_annotation(f.node, var) or _module_uses_refs(ctx):
                return  # a jax.Ref or flax.nnx.Variable argument: item assignment is its update
            if not _array_evidence(ctx, f.node, var):
                # A list (or a Ref from another module) takes `x[i] = v` fine, and the fix would
                # break it: say it without an edit, as a likely problem.
                ctx.report(self, node, severity="warning", confidence="likely", target=var, method=method)
                return
        else:
            kind = _local_kind(ctx, f, var)
            if kind == "dict":
                return  # used as a dict, a dict merge, or a copy of a dict parameter: item assignment updates it
            if kind == "unknown" or _host_array_reaches(ctx, f, node, var):
                # a copy of a parameter that may be a dict (`new = params.copy()`), or a NumPy array on some
                # path here (`out = np.zeros(n)` then `if use_jax: out = jnp.asarray(out)`): the fix breaks it
                ctx.report(self, node, severity="warning", confidence="likely", target=var, method=method)
                return
        index = ctx.segment(target.slice)
        value = ctx.segment(node.value)  # type: ignore[attr-defined]
        fix = None
        if index and value and "\n" not in index + value:
            repl = f"{var} = {var}.at[{index}].{method}({value})"
            fix = ctx.edit(self, node, repl, f"Replace with `{var} = {var}.at[...].{method}(...)`")
        ctx.report(self, node, fix=fix, target=var, method=method)


_REF_TYPES = ("Ref", "Variable", "Param", "BatchStat", "Cache", "Intermediate", "State")
_REF_MODULES = ("flax.nnx", "jax.new_ref", "jax.Ref", "jax.ref", "jax.array_ref", "jax.experimental.mutable_array",
                "jax.experimental.MutableArray", "jax._src.core.Ref", "jax.empty_ref")

def _host_array_reaches(ctx: Context, f, node: ast.AST, var: str) -> bool:
    """Does a binding of ``var`` to a NumPy (host) array reach ``node`` on some path (reaching definitions)?
    Item assignment works on that path, so the array binding makes it fail on some ways only."""
    reaching = reaching_values(f.node, ctx.parents, node, var) if f.node is not None else None
    return any(isinstance(v, ast.Call) and (ctx.info.resolve(v.func) or "").startswith("numpy.")
               for v in reaching or ())


def _container_param(fn: ast.AST | None, name: str) -> bool:
    a = getattr(fn, "args", None)
    return a is not None and any(p.arg == name and container_annotation(p.annotation)
                                 for p in a.posonlyargs + a.args + a.kwonlyargs)


def _ref_annotation(fn: ast.AST | None, name: str) -> bool:
    a = getattr(fn, "args", None)
    if a is None:
        return False
    for p in a.posonlyargs + a.args + a.kwonlyargs:
        if p.arg == name and p.annotation is not None:
            text = ast.unparse(p.annotation)
            return any(t in text for t in _REF_TYPES)
    return False


def _module_uses_refs(ctx: Context) -> bool:
    return ctx.memo(_uses_refs)


def _uses_refs(ctx: Context) -> bool:
    return any(q.startswith(_REF_MODULES) for q in ctx.info.aliases.values()) or (
        "new_ref" in ctx.text or "mutable_array" in ctx.text)


def _array_evidence(ctx: Context, fn: ast.AST | None, name: str) -> bool:
    """Is ``name`` used like an array in ``fn``: ``x.shape``, ``x.at``, ``x.sum()``, ``jnp.f(x)``, ``x @ y``?"""
    if fn is None:
        return False
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and n.attr in _ARRAY_ATTRS and isinstance(n.value, ast.Name) \
                and n.value.id == name:
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and any(
                isinstance(s, ast.Name) and s.id == name for s in (n.left, n.right)):
            return True
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in n.args) and (
                ctx.info.resolve(n.func) or "").startswith(("jax.numpy.", "jax.lax.")):
            return True
    return False


_SHARED_METHODS = frozenset({"copy"})  # methods a dict and an array both have, returning the receiver's kind


def _local_kind(ctx: Context, f, var: str, depth: int = 0) -> str:
    """What the value model's array local ``var`` is, read from the function: ``"dict"`` when it is used as a dict
    (``new["w"]``, ``.items()``, ``"k" in new``), bound to a dict merge (``params | {"a": 1}``) or to a copy of a
    parameter used as a dict; ``"unknown"`` when bound to a copy (``params.copy()``) of a parameter with no array
    use (it may be a dict pytree); else ``"array"``."""
    fn = f.node
    if _dict_like(fn, var):
        return "dict"
    if any(isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == var
           and container_annotation(n.annotation) for n in ast.walk(fn)):
        return "dict"  # `new: Dict[str, Array] = states.copy()`: the code says what it holds
    values = [n.value for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
              and any(isinstance(t, ast.Name) and t.id == var for t in (
                  n.targets if isinstance(n, ast.Assign) else [n.target]))]
    if any(isinstance(v, ast.BinOp) and isinstance(v.op, ast.BitOr) and any(_dict_display(s) for s in (v.left, v.right))
           for v in values):
        return "dict"
    copied = [c for c in (_copy_source(ctx, v) for v in values) if c is not None]
    if not copied or len(copied) != len(values):
        return "array"
    if any(_dict_like(fn, p) for p in copied):
        return "dict"
    for src in copied:  # a copy of a local has the local's kind; one unpacked from a pytree may be a dict
        if src not in f.params and not _unpacked(fn, src):
            kind = _local_kind(ctx, f, src, depth + 1) if depth < 4 and src != var else "array"
            if kind != "unknown":
                return kind
    if _array_evidence(ctx, fn, var) or any(_array_evidence(ctx, fn, p) for p in copied):
        return "array"
    return "unknown"


def _unpacked(fn: ast.AST, name: str) -> bool:
    """Is ``name`` bound by unpacking (``states, outs = carry``, ``for k, v in ...``): an element of a pytree?"""
    for n in ast.walk(fn):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.For, ast.comprehension)) \
            else []
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)) and any(isinstance(e, ast.Name) and e.id == name for e in ast.walk(t)):
                return True
    return False


# Calls whose result has the kind (and pytree structure) of their argument, as `.copy()` has its receiver's.
_SAME_KIND_CALLS = frozenset({"copy.copy", "copy.deepcopy"})


def _copy_source(ctx: Context, v: ast.AST) -> str | None:
    """The name whose kind ``v`` has: ``src.copy()`` (a method dicts and arrays share), ``copy.copy(src)``; a
    parameter or a local (``states, outs = carry`` then ``states.copy()``: a dict carry as well as an array)."""
    if not isinstance(v, ast.Call):
        return None
    if isinstance(v.func, ast.Attribute) and v.func.attr in _SHARED_METHODS and isinstance(v.func.value, ast.Name):
        return v.func.value.id
    if (ctx.info.resolve(v.func) or "") in _SAME_KIND_CALLS and len(v.args) == 1 and isinstance(v.args[0], ast.Name):
        return v.args[0].id
    return None


def _dict_display(node: ast.AST) -> bool:
    return isinstance(node, (ast.Dict, ast.DictComp)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict")
