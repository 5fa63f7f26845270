"""JS612 non-array-pytree-leaf."""

from __future__ import annotations

import ast

from ...jaxmodel import families
from ..context import Context
from ..rule import Rule

_SETS = frozenset({"frozenset", "FrozenSet", "set", "Set", "AbstractSet", "MutableSet"})
_CLASSES = frozenset({"type", "Type"})
_FUNCTIONS = frozenset({"Callable"})
_UNIONS = frozenset({"Optional", "Union"})
_REGISTER_DATACLASS = "jax.tree_util.register_dataclass"
# how each family declares a field static (the fix)
_STATIC = {"equinox": "`eqx.field(static=True)`", "flax": "`struct.field(pytree_node=False)`",
           "register_dataclass": "a meta field (`meta_fields=`, or `field(metadata=dict(static=True))`)",
           "chex": "a value kept outside the dataclass (chex has no static fields)"}


def _root(node: ast.expr) -> str:
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def non_array_kind(ann: ast.expr | None, functions: bool) -> str | None:
    """What a field annotated ``ann`` holds when that is never a valid JAX leaf: ``"a str"``, ``"a set"``, ``"a
    class"`` (and ``"a function"`` where ``functions``); None when it may be an array or a number."""
    if ann is None:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    parts: list[ast.expr] = [ann]
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        parts = [ann.left, ann.right]
    elif isinstance(ann, ast.Subscript) and _root(ann) in _UNIONS:
        sl = ann.slice
        parts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
    parts = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None) and _root(p) != "None"]
    kinds = set()
    for p in parts:
        r = _root(p)
        if r == "str" and not isinstance(p, ast.Subscript):
            kinds.add("a str")
        elif r == "Literal" and isinstance(p, ast.Subscript) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str)
                for e in (p.slice.elts if isinstance(p.slice, ast.Tuple) else [p.slice])):
            kinds.add("a str")
        elif r in _SETS:
            kinds.add("a set")
        elif r in _CLASSES:
            kinds.add("a class")
        elif r in _FUNCTIONS and functions:
            kinds.add("a function")
        elif r in ("tuple", "Tuple") and functions and _int_tuple(p):
            kinds.add("a shape")
        else:
            return None
    return sorted(kinds)[0] if len(kinds) == 1 else None


def _int_tuple(p: ast.expr) -> bool:
    if not isinstance(p, ast.Subscript):
        return False
    elts = p.slice.elts if isinstance(p.slice, ast.Tuple) else [p.slice]
    return any(_root(e) == "int" for e in elts) and all(
        _root(e) == "int" or (isinstance(e, ast.Constant) and e.value is Ellipsis) for e in elts)


def family(ctx: Context, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> str | None:
    """Which dataclass-like pytree family makes every field of ``cls`` a leaf unless declared static."""
    for d in cls.decorator_list:
        q = ctx.resolve(d.func if isinstance(d, ast.Call) else d) or ""
        if q == "flax.struct.dataclass":
            return "flax"
        if q == "chex.dataclass":
            return "chex"
        if q == _REGISTER_DATACLASS and not isinstance(d, ast.Call):
            return "register_dataclass"
    local = {s.name: s for s in ctx.tree.body if isinstance(s, ast.ClassDef)}
    for b in cls.bases:
        b = b.value if isinstance(b, ast.Subscript) else b
        q = ctx.resolve(b) or ""
        if q in families.MODULE_BASES_TRACED_BY_JIT:
            return "equinox"
        if q == "flax.struct.PyTreeNode":
            return "flax"
        if isinstance(b, ast.Name) and b.id in local and b.id not in seen and local[b.id] is not cls:
            got = family(ctx, local[b.id], seen | {cls.name})
            if got:
                return got
    return None


def _static(value: ast.expr | None) -> bool:
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) == "static_field":
        return True
    for k in value.keywords:
        if (k.arg, getattr(k.value, "value", None)) in (("pytree_node", False), ("static", True)):
            return True
        if k.arg == "metadata" and "static" in ast.unparse(k.value):
            return True
    return False


def _registered_fields(ctx: Context) -> dict[str, dict[str, ast.expr]]:
    """``register_dataclass(Cls, data_fields=[...], meta_fields=[...])`` at module level: Cls -> its data fields
    (each with its entry in the list, where the fix goes: move it to ``meta_fields``)."""
    out = {}
    for s in ctx.tree.body:
        call = s.value if isinstance(s, (ast.Expr, ast.Assign)) else None
        if not (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name)
                and ctx.resolve(call.func) == _REGISTER_DATACLASS):
            continue
        data = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "data_fields"), None)
        if isinstance(data, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in data.elts):
            out[call.args[0].id] = {e.value: e for e in data.elts}  # type: ignore[attr-defined]
    return out


class NonArrayPytreeLeaf(Rule):
    """A field of a dataclass-like pytree, declared as a ``str``, a set or a class, left a child (a leaf).

    ## What it does
    Flags a field of an equinox Module, a flax ``struct.dataclass``/``PyTreeNode``, a ``chex.dataclass`` or a
    ``jax.tree_util.register_dataclass`` class (decorated, or registered with ``data_fields=[...]``) whose annotation
    admits no JAX leaf: ``str`` (or a ``Literal`` of strings), ``frozenset``/``set``, ``type``, and, outside equinox,
    ``Callable`` and a shape (``tuple[int, ...]``: each int becomes a tracer, which no shape accepts); ``| None``
    allowed. For a class registered by a call, the finding is at its entry in ``data_fields``. Fields declared static (``eqx.field(static=True)``, ``eqx.static_field()``,
    ``struct.field(pytree_node=False)``, ``field(metadata=dict(static=True))``, ``meta_fields``) are not flagged, nor
    numbers, arrays, containers or unannotated fields (their values may be arrays).

    ## Why is this bad?
    These families make every field a child of the pytree unless it is declared static. ``jax.jit`` and ``jax.vmap``
    of a function given the instance (and a ``lax.scan``/``while_loop`` carry holding it) turn every leaf into an
    abstract array, and a string, a set or a class is no valid JAX type: ``TypeError: Error interpreting argument
    ... as an abstract array`` (checked under real jax in tests/test_lint_pytree_leaf_types.py). ``eqx.filter_jit``
    keeps non-array leaves static, so equinox code that only uses the filtered transforms works, and the first user
    who calls ``jax.jit`` or ``jax.vmap`` on the Module fails. An ``info``: the failing route (the instance passed to
    a plain jax transform) is not one the model sees, and configs declared as pytree dataclasses are often only ever
    passed as static arguments or held as module attributes, where no leaf is traced.

    ## Example
    ```python
    class Modifier(eqx.Module):
        scale: jax.Array
        mode: str = "multiplicative"
    ```

    ## Use instead
    ```python
    class Modifier(eqx.Module):
        scale: jax.Array
        mode: str = eqx.field(static=True, default="multiplicative")
    ```

    ## Fix safety
    No fix is offered: a static field is part of the treedef, so changing it recompiles; that is the program's choice.
    """

    code = "JS612"
    name = "non-array-pytree-leaf"
    message = "`{field}` ({what}) is a leaf of pytree `{cls}`: jax.jit/vmap of it raise TypeError"
    severity = "info"
    confidence = "likely"
    nodes = (ast.ClassDef,)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        cls: ast.ClassDef = node  # type: ignore[assignment]
        if len(ctx.frames) > 1 or cls not in ctx.tree.body:
            return
        fam = family(ctx, cls)
        data = ctx.memo(_registered_fields).get(cls.name)
        if fam is None and data is not None:
            fam = "register_dataclass"
        if fam is None:
            return
        for s in cls.body:
            if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)) or _static(s.value):
                continue
            if data is not None and s.target.id not in data:
                continue
            what = non_array_kind(s.annotation, functions=fam != "equinox")
            if what is None:
                continue
            filtered = (" (`eqx.filter_jit` keeps non-array leaves static; plain jax transforms do not)"
                        if fam == "equinox" else "")
            if what.startswith("a shape"):
                msg = (f"`{s.target.id}: {ast.unparse(s.annotation)}` is a shape, yet it is a child (leaves) of pytree "
                       f"`{cls.name}`: under `jax.jit` or `jax.vmap` of a function given a `{cls.name}` each of its ints "
                       "is a tracer, so using it as a shape or size (`jnp.zeros(g.shape)`, `reshape`, `range`) raises; "
                       f"declare it static: {_STATIC[fam]}")
            else:
                msg = (f"`{s.target.id}: {ast.unparse(s.annotation)}` holds {what}, "
                       f"yet it is a child (a leaf) of pytree `{cls.name}`: `jax.jit` or `jax.vmap` of a function given "
                       f"a `{cls.name}`, or a scan carry holding one, raises TypeError (not a valid JAX type){filtered}; "
                       f"declare it static: {_STATIC[fam]}")
            ctx.report(self, data[s.target.id] if data is not None else s.target, msg, field=s.target.id, what=what, cls=cls.name, family=fam)
