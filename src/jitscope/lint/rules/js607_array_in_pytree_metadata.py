"""JS607 array-in-pytree-metadata."""

from __future__ import annotations

import ast

from ...jaxmodel import families
from ..context import Context
from ..pytrees import ARRAY_ONLY_TYPES, JAXTYPING_ARRAYS
from ..rule import Rule
from ._static_args import _self_assignments, unhashable, values_of

_INITS = frozenset({"__init__", "__post_init__"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class ArrayInPytreeMetadata(Rule):
    """A NumPy or JAX array stored in a pytree's metadata (aux data, a static field).

    ## What it does
    Flags an array (a ``numpy``/``jax.numpy`` constructor, a name or attribute bound to one) stored in
    the metadata of a pytree class of the module:

    - an attribute that ``tree_flatten`` of a ``@register_pytree_node_class`` class returns in its aux
      data (``return (self.values,), (self.edges,)``), assigned an array in the class's methods
      (``self.edges = np.asarray(edges)``) or given one through ``__init__``'s parameter at a
      construction ``Grid(values, np.linspace(0, 1, 5))``;
    - a field declared static (``flax.struct.field(pytree_node=False)``, ``eqx.field(static=True)``)
      given an array at a construction of the class, or declared with an array type (``grid: jax.Array =
      eqx.field(static=True)``, jaxtyping's ``Float[Array, "n"]``): reported once, at the declaration.

    ## Why is this bad?
    Metadata is part of the pytree's structure: jit's cache compares the structure of each call's
    arguments with the cached one, and compares metadata with ``==``. An array's ``==`` is an array,
    whose truth value is ambiguous: passing a second instance holding an equal but distinct array raises
    ``ValueError`` (JAX 0.10: "Exception raised while checking equality of metadata fields of pytree ...
    arrays cannot be passed as metadata fields"), checked under real ``jax.jit``. The first call works,
    and so does passing the very same object again, which hides it until instances are rebuilt.

    ## Example
    ```python
    @jax.tree_util.register_pytree_node_class
    class Grid:
        def __init__(self, values, edges):
            self.values, self.edges = values, edges
        def tree_flatten(self):
            return (self.values,), (self.edges,)
        ...

    Grid(values, np.linspace(0.0, 1.0, 5))
    ```

    ## Use instead
    ```python
    Grid(values, tuple(np.linspace(0.0, 1.0, 5)))   # hashable metadata, or make `edges` a child (a leaf)
    ```

    ## Fix safety
    No fix is offered: whether the array should be traced (a child) or a tuple is the program's choice.
    """

    code = "JS607"
    name = "array-in-pytree-metadata"
    message = ("`{attr}` is pytree metadata of `{cls}` ({where}) and gets {what}: jit compares metadata with "
               "`==`, so a second `{cls}` holding an equal but distinct array raises ValueError; store a tuple "
               "(or another hashable value), or make it a child (a leaf)")
    severity = "warning"
    confidence = "likely"
    nodes = (ast.ClassDef, ast.Call)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.ClassDef):
            self._stored(node, ctx)
            return
        call: ast.Call = node  # type: ignore[assignment]
        if not isinstance(call.func, ast.Name) or ctx._local_frame(call.func.id) is not None:
            return
        cls = _classes(ctx).get(call.func.id)
        if cls is None:
            return
        meta = metadata(ctx, cls)
        if not meta:
            return
        typed = _array_typed_fields(cls)
        for attr, arg in _passed(cls, call, meta):
            if attr in typed:
                continue  # reported once, at the field's declaration
            what = _array(ctx, arg)
            if what:
                self._report(ctx, arg, attr, cls, meta[attr], what)

    def _stored(self, cls: ast.ClassDef, ctx: Context) -> None:
        meta = metadata(ctx, cls)
        typed = _array_typed_fields(cls)
        for attr, where in meta.items():
            if attr in typed:
                self._report(ctx, typed[attr], attr, cls, where, "an array (its declared type)")
                continue
            for target, value in _self_assignments(ctx, cls, attr):
                what = unhashable(ctx, value) if value is not None else None
                if what and "array" in what:
                    self._report(ctx, target, attr, cls, where, what)

    def _report(self, ctx: Context, node: ast.AST, attr: str, cls: ast.ClassDef, where: str, what: str) -> None:
        ctx.report(self, node, self.message.format(attr=attr, cls=cls.name, where=where, what=what),
                   attr=attr, cls=cls.name, where=where, what=what)


def _array(ctx: Context, arg: ast.expr) -> str | None:
    """``"a NumPy array"`` / ``"a JAX array"`` when every value ``arg`` may hold is one, else None."""
    kinds = [unhashable(ctx, v) for v in values_of(ctx, arg)]
    if kinds and all(k and "array" in k for k in kinds):
        return kinds[0]
    return None


def _classes(ctx: Context) -> dict[str, ast.ClassDef]:
    return ctx.memo(_module_classes)


def _module_classes(ctx: Context) -> dict[str, ast.ClassDef]:
    seen: dict[str, list[ast.ClassDef]] = {}
    for s in ctx.tree.body:
        if isinstance(s, (ast.ClassDef, *_DEFS)):
            seen.setdefault(s.name, []).append(s)  # type: ignore[arg-type]
    return {k: v[0] for k, v in seen.items() if len(v) == 1 and isinstance(v[0], ast.ClassDef)
            and not ctx.info.module_assign_count.get(k, 0)}


def metadata(ctx: Context, cls: ast.ClassDef) -> dict[str, str]:
    """The attributes of ``cls`` that its pytree keeps as metadata -> where that is said."""
    table = ctx.table(metadata)
    got = table.get(cls)
    if got is None:
        got = table[cls] = _aux_attributes(ctx, cls) or _static_fields(ctx, cls)
    return got


def _aux_attributes(ctx: Context, cls: ast.ClassDef) -> dict[str, str]:
    """``self.x`` attributes in the aux data ``tree_flatten`` returns, for a ``register_pytree_node_class`` class."""
    if not any(ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) == "jax.tree_util.register_pytree_node_class"
               for d in cls.decorator_list):
        return {}
    flatten = next((s for s in cls.body if isinstance(s, _DEFS) and s.name == "tree_flatten"), None)
    if flatten is None:
        return {}
    bound: dict[str, list[ast.expr]] = {}
    for n in ast.walk(flatten):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            bound.setdefault(n.targets[0].id, []).append(n.value)
    out: dict[str, str] = {}
    for n in ast.walk(flatten):
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple) and len(n.value.elts) == 2:
            aux = n.value.elts[1]
            if isinstance(aux, ast.Name) and len(bound.get(aux.id, ())) == 1:
                aux = bound[aux.id][0]
            for e in _elements(aux):
                if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
                    out[e.attr] = f"the aux data `tree_flatten` returns, line {n.lineno}"
    return out


def _elements(aux: ast.expr) -> list[ast.expr]:
    if isinstance(aux, (ast.Tuple, ast.List)):
        return list(aux.elts)
    if isinstance(aux, ast.Dict):
        return [v for v in aux.values if v is not None]
    return [aux]


def _static_fields(ctx: Context, cls: ast.ClassDef) -> dict[str, str]:
    """Fields of a flax struct dataclass / equinox Module declared static (``pytree_node=False``, ``static=True``)."""
    decorated = any(ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) in families.PYTREE_DECORATORS
                    for d in cls.decorator_list)
    based = any((ctx.info.resolve(b) or "") in families.PYTREE_BASES | families.STATIC_FIELD_BASES
                for b in cls.bases)
    if not decorated and not based:
        return {}
    out: dict[str, str] = {}
    for s in cls.body:
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and isinstance(s.value, ast.Call):
            for k in s.value.keywords:
                if (k.arg, getattr(k.value, "value", None)) in (("pytree_node", False), ("static", True)):
                    out[s.target.id] = f"declared static at line {s.lineno}"
    return out


def _array_typed_fields(cls: ast.ClassDef) -> dict[str, ast.expr]:
    """Fields whose declared type is an array and nothing else (``jax.Array``, ``np.ndarray``, jaxtyping's
    ``Float[Array, "n"]``; not ``Array | None`` nor ``Callable[..., Array]``) -> the annotation."""
    out = {}
    for s in cls.body:
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            ann = s.annotation
            head = ann.value if isinstance(ann, ast.Subscript) else ann
            name = head.attr if isinstance(head, ast.Attribute) else head.id if isinstance(head, ast.Name) else ""
            if (name in ARRAY_ONLY_TYPES and ann is head) or (name in JAXTYPING_ARRAYS and ann is not head):
                out[s.target.id] = ann
    return out


def _passed(cls: ast.ClassDef, call: ast.Call, meta: dict[str, str]) -> list[tuple[str, ast.expr]]:
    """(metadata attribute, argument) for each argument of the construction ``call`` that lands in one: through
    ``__init__``'s parameter stored as ``self.attr = param``, or a dataclass field by keyword or position."""
    init = next((s for s in cls.body if isinstance(s, _DEFS) and s.name == "__init__"), None)
    if init is not None:
        params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
        stored = {}
        for n in ast.walk(init):
            if not isinstance(n, ast.Assign) or len(n.targets) != 1:
                continue
            pairs = [(n.targets[0], n.value)]
            if isinstance(n.targets[0], ast.Tuple) and isinstance(n.value, ast.Tuple) \
                    and len(n.targets[0].elts) == len(n.value.elts):  # `self.values, self.edges = values, edges`
                pairs = list(zip(n.targets[0].elts, n.value.elts, strict=True))
            for t, v in pairs:
                if isinstance(v, ast.Name) and isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                        and t.value.id == "self" and t.attr in meta:
                    stored[v.id] = t.attr
        fields = [stored.get(p) for p in params]
        keyword = stored
    else:
        fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                  and not _classvar(s)]
        keyword = {f: f for f in fields}
    out = []
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        if i < len(fields) and fields[i] in meta:
            out.append((fields[i], a))  # type: ignore[arg-type]
    out += [(keyword[k.arg], k.value) for k in call.keywords if k.arg in keyword and keyword[k.arg] in meta]
    return out


def _classvar(s: ast.AnnAssign) -> bool:
    return "ClassVar" in ast.unparse(s.annotation)
