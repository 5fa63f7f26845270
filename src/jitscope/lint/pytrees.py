"""Pytree classes of the linted module: which attributes of a traced instance are traced array leaves.

Under jit a dataclass pytree (flax ``struct.dataclass``, chex, a ``NamedTuple``, an equinox module) is a
Python object whose fields are its leaves: ``state.entities`` is a tracer, ``state`` is not (its truth
value is a Python one). For a parameter annotated with a class defined in the same module, a field
annotated as an array (``jax.Array``, ``chex.Array``, ``jnp.ndarray``, ``Float[...]``) is a traced
leaf, unless declared static (``struct.field(pytree_node=False)``, ``eqx.field(static=True)``);
``state.replace(...)`` (and ``._replace``, ``dataclasses.replace``) keeps the class.
"""

from __future__ import annotations

import ast

_ARRAY_WORDS = ("Array", "ndarray", "Float[", "Int[", "Bool[", "Shaped[", "Num[", "Real[", "PRNGKey", "Key[")
_STATIC_FIELD = ("pytree_node=False", "static=True")


def annotated_class(ctx, ann: ast.expr | None) -> ast.ClassDef | None:  # ctx: lint.context.Context
    """The module-level class an annotation names (``EnvState``, ``"EnvState"``), or None."""
    if ann is None:
        return None
    name = ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) else (
        ann.id if isinstance(ann, ast.Name) else None)
    if not name:
        return None
    classes = ctx.__dict__.get("_module_classes")
    if classes is None:
        classes = ctx.__dict__["_module_classes"] = {s.name: s for s in ctx.tree.body if isinstance(s, ast.ClassDef)}
    cls = classes.get(name)
    return cls if cls is not None and _fields(cls) else None


def _fields(cls: ast.ClassDef) -> dict[str, bool]:
    """Annotated fields of a class body -> whether the field is a traced array leaf."""
    cached = cls.__dict__.get("_jitscope_fields")
    if cached is not None:
        return cached
    out: dict[str, bool] = {}
    for s in cls.body:
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            text = ast.unparse(s.annotation)
            static = s.value is not None and any(w in ast.unparse(s.value).replace(" ", "") for w in _STATIC_FIELD)
            out[s.target.id] = not static and any(w in text for w in _ARRAY_WORDS)
    cls.__dict__["_jitscope_fields"] = out
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
    return cls is not None and _fields(cls).get(node.attr, False)


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
    elif any(w in ast.unparse(ann) for w in _ARRAY_WORDS):
        f.traced_names.add(target.id)
        f.arrays.add(target.id)
