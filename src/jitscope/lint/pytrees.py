"""Pytree classes of the linted module: which attributes of a traced instance are traced array leaves.

Under jit a dataclass pytree (flax ``struct.dataclass``, chex, a ``NamedTuple``, an equinox module) is a
Python object whose fields are its leaves: ``state.entities`` is a tracer, ``state`` is not (its truth
value is a Python one). For a parameter annotated with a class defined in the same module, a field
annotated as an array (``jax.Array``, ``chex.Array``, ``jnp.ndarray``, ``Float[...]``) is a traced
leaf, unless declared static (``struct.field(pytree_node=False)``, ``eqx.field(static=True)``);
``state.replace(...)`` (and ``._replace``, ``dataclasses.replace``) keeps the class. A field annotated as a
Python container (``dict[str, Array]``, ``Sequence[Array]``: lint/params.container_annotation) is a Python
dict/list/tuple whose leaves are traced: ``if self.d:`` tests its length (Python work), ``self.d["k"]`` is traced.
"""

from __future__ import annotations

import ast

from ..jaxmodel import families, known
from . import hostonly
from .astutil import ast_walk
from .params import container_annotation

_ARRAY_NAMES = frozenset({"Array", "ndarray", "ArrayLike", "ArrayImpl", "PRNGKey", "PRNGKeyArray", "DeviceArray"})
_JAXTYPING = frozenset({"Float", "Int", "Bool", "Shaped", "Num", "Real", "Complex", "Integer", "Inexact", "Key",
                        "UInt"})
_STATIC_FIELD = ("pytree_node=False", "static=True")
# the array types a value of which is an array and nothing else (`ArrayLike` admits Python numbers), and
# jaxtyping's dtype-and-shape annotations (`Float[Array, "n"]`)
ARRAY_ONLY_TYPES = frozenset({"Array", "ndarray", "ArrayImpl", "DeviceArray", "PRNGKeyArray"})
JAXTYPING_ARRAYS = _JAXTYPING


def annotated_class(ctx, ann: ast.expr | None) -> ast.ClassDef | None:  # ctx: lint.context.Context
    """The module-level pytree class an annotation names (``EnvState``, ``"EnvState"``), or None."""
    if ann is None:
        return None
    name = ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) else (
        ann.id if isinstance(ann, ast.Name) else None)
    if not name:
        return None
    cls = module_classes(ctx).get(name)
    return cls if cls is not None and is_pytree(ctx, cls) else None


def module_classes(ctx) -> dict[str, ast.ClassDef]:
    return ctx.memo(_find_module_classes)


def _find_module_classes(ctx) -> dict[str, ast.ClassDef]:
    return {s.name: s for s in ctx.tree.body if isinstance(s, ast.ClassDef)}


def is_pytree(ctx, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
    """Is ``cls`` a pytree whose instances carry arrays through jit: registered (a pytree decorator or base
    of jaxmodel's families: flax struct, equinox Module, nnx Variable, a NamedTuple, ...), or a dataclass
    declaring array fields (JAX libraries register those: jax_md's own ``dataclasses.dataclass``)?"""
    cached = cls.__dict__.get("_jitscope_pytree")
    if cached is not None:
        return cached
    out = False
    for d in cls.decorator_list:
        q = ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) or ""
        if q in families.PYTREE_DECORATORS or (q.rpartition(".")[2] == "dataclass" and any(_fields(ctx, cls).values())
                                               and (q != families.PLAIN_DATACLASS or cls.name in _registered(ctx))):
            out = True  # Python's own dataclass is a pytree only where the module registers it
    for b in _bases(ctx, cls):
        if isinstance(b, str):
            out = out or b in families.PYTREE_BASES or (b.rpartition(".")[2] == "NamedTuple" and any(
                _fields(ctx, cls).values()))
        elif b.name not in seen:
            out = out or is_pytree(ctx, b, seen | {cls.name})
    cls.__dict__["_jitscope_pytree"] = out
    return out


def _registered(ctx) -> frozenset[str]:
    """Names of the classes a module-level call registers as pytrees (``families.PYTREE_REGISTER_CALLS``)."""
    return ctx.memo(_find_registered)


def _find_registered(ctx) -> frozenset[str]:
    found = set()
    for s in ctx.tree.body:
        call = s.value if isinstance(s, (ast.Expr, ast.Assign)) else None
        if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name) \
                and ctx.info.resolve(call.func) in families.PYTREE_REGISTER_CALLS:
            found.add(call.args[0].id)
    return frozenset(found)


def _bases(ctx, cls: ast.ClassDef) -> list[ast.ClassDef | str]:
    """Module-level base classes as their defs, others as qualified names (generic ``Base[T]`` unwrapped)."""
    out: list[ast.ClassDef | str] = []
    local = module_classes(ctx)
    for b in cls.bases:
        if isinstance(b, ast.Subscript):
            b = b.value
        if isinstance(b, ast.Name) and b.id in local and local[b.id] is not cls:
            out.append(local[b.id])
        else:
            out.append(ctx.info.resolve(b) or "")
    return out


def _fields(ctx, cls: ast.ClassDef) -> dict[str, str]:
    """Annotated fields of a class body (and its module-level bases) -> ``"array"`` for a traced array leaf,
    ``"container"`` for a Python container of arrays, ``""`` otherwise; a library base's array attributes
    (``nnx.Variable.value``) count too."""
    cached = cls.__dict__.get("_jitscope_fields")
    if cached is not None:
        return cached
    cls.__dict__["_jitscope_fields"] = out = {}
    for b in _bases(ctx, cls):
        if isinstance(b, str):
            out.update({a: "array" for a in families.ARRAY_ATTRIBUTES.get(b, ())})
        else:
            out.update(_fields(ctx, b))
    for s in cls.body:
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            text = ast.unparse(s.annotation)
            static = s.value is not None and any(w in ast.unparse(s.value).replace(" ", "") for w in _STATIC_FIELD)
            leafy = not static and _array_text(text)
            out[s.target.id] = "" if not leafy else "container" if container_annotation(s.annotation) else "array"
    return out


def array_field(ctx, node: ast.Attribute) -> bool:
    """Is ``node`` (``state.entities``) an array field of a traced pytree name whose class is known?"""
    base = node.value
    if type(base) is not ast.Name:
        return False
    f = ctx._local_frame(base.id)
    if f is None or not f.traced:
        return False
    cls = f.classes.get(base.id)
    if cls is None:
        return False
    kind = _fields(ctx, cls).get(node.attr)
    return kind == "array" or (kind == "" and base.id in f.params and _scalar_leaf_under_jit(ctx, f, cls, node.attr))


def _scalar_leaf_under_jit(ctx, frame, cls: ast.ClassDef, attr: str) -> bool:
    """``m.n`` where ``m`` (a parameter of a function plain ``jax.jit`` traces, not ``filter_jit``) is an equinox
    Module and ``n: int`` is not ``eqx.field(static=True)``: jit flattens every field into a leaf, so it is a tracer
    (families/equinox.py MODULE_BASES_TRACED_BY_JIT)."""
    spec = frame.spec
    if spec is None or spec.filter or spec.assumed or spec.via or spec.wrapper not in known.COMPILING:
        return False
    if not _derives(ctx, cls, families.MODULE_BASES_TRACED_BY_JIT, frozenset()):
        return False
    for c in [cls, *(b for b in _bases(ctx, cls) if isinstance(b, ast.ClassDef))]:
        for st in c.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == attr:
                static = st.value is not None and any(w in ast.unparse(st.value).replace(" ", "") for w in _STATIC_FIELD)
                return not static and isinstance(st.annotation, ast.Name) and st.annotation.id in ("int", "float", "bool")
    return False


def _derives(ctx, cls: ast.ClassDef, bases, seen: frozenset[str]) -> bool:
    for b in _bases(ctx, cls):
        if isinstance(b, str):
            if b in bases:
                return True
        elif b.name not in seen and _derives(ctx, b, bases, seen | {cls.name}):
            return True
    return False


def container_field(ctx, node: ast.AST) -> bool:
    """Is ``node`` (``self.d``) a field of a traced pytree name annotated as a Python container of arrays?"""
    base = getattr(node, "value", None)
    if type(node) is not ast.Attribute or type(base) is not ast.Name:
        return False
    f = ctx._local_frame(base.id)
    cls = f.classes.get(base.id) if f is not None and f.traced else None
    return cls is not None and _fields(ctx, cls).get(node.attr) == "container"  # type: ignore[union-attr]


def replaced(ctx, value: ast.AST) -> ast.ClassDef | None:
    """The class of ``state.replace(...)`` / ``state._replace(...)`` / ``dataclasses.replace(state, ...)``."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    base = None
    if isinstance(func, ast.Attribute) and func.attr in ("replace", "_replace"):
        base = func.value
    elif value.args and ctx.resolve(func) in ("dataclasses.replace", "replace"):
        base = value.args[0]
    if type(base) is not ast.Name:
        return None
    f = ctx._local_frame(base.id)
    return f.classes.get(base.id) if f is not None else None


def bind_returned(ctx, target: ast.AST, call: ast.Call) -> None:
    """Bind ``target`` to what a call of a module function returns, by its return annotation, when traced
    values go in: ``-> EnvState`` a pytree of that class, ``-> jax.Array`` a traced array,
    ``-> Tuple[EnvState, jnp.ndarray, bool]`` element by element (``bool`` stays a Python value)."""
    if type(call.func) is not ast.Name or ctx._local_frame(call.func.id) is not None:
        return
    fn = ctx.info.defs.get(call.func.id)
    if fn is None or fn.returns is None or call.func.id not in ctx.info.module_defs:
        return
    if not any(ctx.is_traced(a) or (type(a) is ast.Name and _pytree(ctx, a.id)) for a in call.args):
        return
    ann = fn.returns
    if isinstance(target, (ast.Tuple, ast.List)):
        parts = _tuple_parts(ann)
        if parts is None or len(parts) != len(target.elts):
            return
        for t, part in zip(target.elts, parts, strict=True):
            _bind_annotated(ctx, t, part)
    else:
        _bind_annotated(ctx, target, ann)


def _pytree(ctx, name: str) -> bool:
    f = ctx._local_frame(name)
    return f is not None and name in f.pytrees


def _tuple_parts(ann: ast.expr) -> list[ast.expr] | None:
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)):
        head = ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr
        if head in ("Tuple", "tuple") and isinstance(ann.slice, ast.Tuple):
            return list(ann.slice.elts)
    return None


def _bind_annotated(ctx, target: ast.AST, ann: ast.expr) -> None:
    if type(target) is not ast.Name:
        return
    f = ctx.frame
    cls = annotated_class(ctx, ann)
    if cls is not None:
        f.pytrees.add(target.id)
        f.classes[target.id] = cls
        f.traced_names.discard(target.id)
    elif _array_text(ast.unparse(ann)):
        f.traced_names.add(target.id)
        f.arrays.add(target.id)


_HOST_WORDS = ("repr", "str", "plot", "show", "save", "load", "print", "log", "numpy", "tolist", "summary",
               "display", "draw", "render", "serialize", "to_", "from_", "host", "describe", "hash", "eq")


def _construction_only(ctx, cls: ast.ClassDef, name: str) -> bool:
    """Is ``name`` a private method of ``cls`` that only ``__init__``/``__post_init__`` use (``self._edges()``
    while building, in this class or a base of the module)? Private: nothing outside the module names it; it runs
    when an instance is made."""
    if not name.startswith("_") or name.startswith("__"):
        return False
    total, built = ctx.memo(_private_uses).get(name, (0, 0))
    return total > 0 and total == built


def _private_uses(ctx) -> dict[str, tuple[int, int]]:
    """Private attribute name -> (uses, uses inside an ``__init__``/``__post_init__`` of a module class)."""
    inits = [m for c in module_classes(ctx).values() for m in c.body
             if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in ("__init__", "__post_init__")]
    inside = {id(n) for m in inits for n in ast_walk(m)}
    out: dict[str, tuple[int, int]] = {}
    for n in ast_walk(ctx.tree):
        if isinstance(n, ast.Attribute) and n.attr.startswith("_"):
            total, built = out.get(n.attr, (0, 0))
            out[n.attr] = (total + 1, built + (id(n) in inside))
    return out


def method_may_run_traced(ctx, cls: ast.ClassDef, method: ast.AST) -> bool:
    """Does this pytree method run on traced values when an instance passes through jit: a computation or
    property that reads an array field of ``self`` (not a host-side ``__repr__``, ``plot``, ``to_numpy``,
    ``save``)? Construction (``__init__``/``__post_init__``) runs eagerly, except for classes JAX rebuilds
    while tracing (flax nnx Variables: jaxmodel's families; a ``tree_unflatten`` that calls the class)."""
    name = getattr(method, "name", "")
    if name in ("__init__", "__post_init__"):
        return rebuilt_while_tracing(ctx, cls)
    if (name.startswith("__") and name.endswith("__") and name not in ("__call__", "__getitem__")) or any(
            w in name.lower() for w in _HOST_WORDS):
        return False
    if _construction_only(ctx, cls, name):
        return rebuilt_while_tracing(ctx, cls)
    if hostonly.display_only(ctx, name):
        return False  # a property only `__repr__`/`__str__` (or eager module code) reads: reached on the host only
    if _converts_to_host_library(ctx, method):
        return False  # `def sympy(self) -> sympy.Expr`: builds another library's object from concrete values
    fields = _fields(ctx, cls)

    def field(n: ast.AST) -> bool:
        return isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" \
            and bool(fields.get(n.attr))

    reads = False
    for n in ast_walk(method):
        if field(n):
            reads = True
        elif isinstance(n, ast.Call) and (ctx.info.resolve(n.func) or "").startswith("numpy.") and any(
                field(m) for a in n.args for m in ast_walk(a)):
            return False  # NumPy on its own array fields: a method written for the host
    return reads


# Module heads whose types a traced computation can return (arrays, pytrees, typing): anything else a method is
# named after or annotated to return (`sympy`, `torch`, `pandas`) is another library's object, built on the host.
_TRACEABLE_HEADS = frozenset({"jax", "jaxlib", "equinox", "flax", "chex", "optax", "haiku", "jaxtyping", "typing",
                              "typing_extensions", "collections", "abc", "builtins", "dataclasses", "functools",
                              "numbers", "types", "distrax", "tensorflow_probability", "numpyro", "diffrax", "lineax",
                              "optimistix", "penzai", "orbax"})


def _converts_to_host_library(ctx, method: ast.AST) -> bool:
    """Is the method a conversion to another (non-JAX) library: named after a module the file imports
    (``def sympy(self)`` with ``import sympy``; ``def pandas(self)``) or annotated to return its type
    (``-> sympy.Expr``)? Such an object is built from concrete Python values (``.item()``), on the host."""
    imported = {local: q for local, q in ctx.info.aliases.items() if "." not in local}
    name = getattr(method, "name", "")
    q = imported.get(name)
    if q is not None and q.split(".", 1)[0] == name and name not in _TRACEABLE_HEADS and name != "numpy":
        return True
    ann = getattr(method, "returns", None)
    root = ann
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(ann, ast.Attribute) and isinstance(root, ast.Name) and root.id in imported:
        head = imported[root.id].split(".", 1)[0]
        return head not in _TRACEABLE_HEADS and head != "numpy"
    return False


def rebuilt_while_tracing(ctx, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
    """Does JAX run the class's constructor inside a trace: a library class it rebuilds (jaxmodel's
    families), or a ``tree_unflatten`` (its own or a module-level base's) that calls the class
    (``cls(*children, **aux)``)? JAX unflattens with the traced leaves in every trace the instance enters."""
    if _unflatten_constructs(cls):
        return True
    for b in _bases(ctx, cls):
        if isinstance(b, str):
            if b in families.REBUILT_WHILE_TRACING:
                return True
        elif b.name not in seen and rebuilt_while_tracing(ctx, b, seen | {cls.name}):
            return True
    return False


def _unflatten_constructs(cls: ast.ClassDef) -> bool:
    for s in cls.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "tree_unflatten" and s.args.args:
            names = {s.args.args[0].arg, cls.name}
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
                   for n in ast_walk(s)):
                return True
    return False


def array_annotation(ann: ast.expr | None) -> bool:
    return ann is not None and _array_text(ast.unparse(ann))


def _array_text(text: str) -> bool:
    """``jax.Array``, ``chex.Array``, ``jnp.ndarray``, ``Float[Array, "n"]``, ``Array | None``: an array type
    (by name: ``HashableArray`` is not one)."""
    import re

    names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)
    return any(n in _ARRAY_NAMES for n in names) or any(n in _JAXTYPING and f"{n}[" in text for n in names)


def self_class(ctx, node: ast.AST) -> ast.ClassDef | None:
    """The pytree class ``node`` (a def) is a method of, when it is one (also when walked alone, by the
    call graph, without its class around it)."""
    for p in reversed(ctx.parents):
        if p is node:
            continue
        if isinstance(p, ast.ClassDef):
            return p if node in p.body and is_pytree(ctx, p) else None
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
    cls = ctx.memo(_method_owners).get(node)
    return cls if cls is not None and is_pytree(ctx, cls) else None


# Conversions whose result is a Python value by protocol (`float(x)` calls `x.__float__()`), and the array
# methods that return one (`jax.Array.item()` a Python scalar, `.tolist()` nested lists): both concretize.
_PROTOCOL_CONVERSIONS = frozenset({"__int__", "__float__", "__bool__", "__index__", "__complex__"})
_PYTHON_RESULT_METHODS = frozenset({"item", "tolist"})
_PY_SCALARS = frozenset({"int", "float", "bool", "str", "complex"})
_PY_CONTAINERS = frozenset({"dict", "list", "tuple", "set", "frozenset", "Dict", "List", "Tuple", "Set", "FrozenSet"})


_SCIPY_SPARSE = frozenset({f"{k}_{kind}" for k in ("csc", "csr", "coo", "lil", "dok", "bsr", "dia")
                           for kind in ("matrix", "array")} | {"spmatrix", "sparray"})


def python_scalar(method: ast.AST) -> bool:
    """Does the method hand back a host value: ``-> int``/``float``/``bool``/``str``, a SciPy sparse matrix (built
    from concrete arrays only: ``-> csc_matrix``), a conversion by protocol
    (``__float__``, ``__index__``), or every ``return`` a comparison, ``and``/``or``/``not``, an
    ``int()``/``float()``/``bool()``/``len()`` call, or ``x.item()``/``x.tolist()``?"""
    ann = getattr(method, "returns", None)
    if isinstance(ann, ast.Name) and ann.id in _PY_SCALARS:
        return True
    if isinstance(ann, ast.Subscript):  # `-> dict[int, int]`, `list[tuple[int, int]]`: Python numbers in a container
        names = [n.id for n in ast_walk(ann) if isinstance(n, ast.Name)]
        if names and names[0] in _PY_CONTAINERS and all(n in _PY_SCALARS or n in _PY_CONTAINERS for n in names):
            return True
    if getattr(method, "name", "") in _PROTOCOL_CONVERSIONS:
        return True
    if ann is not None and any(isinstance(n, (ast.Name, ast.Attribute)) and (getattr(n, "id", None) or getattr(
            n, "attr", None)) in _SCIPY_SPARSE for n in ast_walk(ann)):
        return True  # `-> csc_matrix`: a SciPy sparse matrix, built from host values only (a tracer cannot go in)
    values = [n.value for n in ast_walk(method) if isinstance(n, ast.Return) and n.value is not None]
    return bool(values) and all(
        isinstance(v, (ast.Compare, ast.BoolOp)) or (isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not))
        or (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("int", "float", "bool", "len"))
        or (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _PYTHON_RESULT_METHODS
            and not v.args and not v.keywords)
        for v in values)


def _method_owners(ctx) -> dict:
    """Method def -> its module-level class."""
    return {m: s for s in ctx.tree.body if isinstance(s, ast.ClassDef)
            for m in s.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
