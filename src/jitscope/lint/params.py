"""Which parameters of a traced function hold Python values rather than tracers.

Wrappers decide this differently: ``jax.jit`` traces every argument not named static;
``equinox.filter_jit`` (and Flax's ``compact`` ``__call__``) traces only the array
leaves, so a parameter annotated ``int | None`` or a bare ``flag`` used only as a truth
value is a Python value there. These checks look at one parameter and its function.
"""

from __future__ import annotations

import ast

from ..jaxmodel.values import HOST_SIZE_ARGS
from .astutil import ast_walk

_NON_ARRAY_TYPES = frozenset({"int", "bool", "str", "float", "None", "Callable", "type", "tuple", "dict", "list",
                              "Sequence", "Mapping", "Literal", "complex",
                              "Shape"})  # a shape: a tuple of Python ints (jax's, flax's and kauldron's alias)


def non_array_annotation(ann: ast.expr | None) -> bool:
    """Is ``ann`` a Python-value type: ``int``, ``bool``, ``int | None``, ``Optional[str]``, ``Callable[...]``?"""
    if ann is None:
        return False
    if isinstance(ann, ast.Constant):
        return ann.value is None or (isinstance(ann.value, str) and _text_non_array(ann.value))
    return _text_non_array(ast.unparse(ann))


def _text_non_array(text: str) -> bool:
    text = text.replace(" ", "")
    if text.startswith(("Optional[", "typing.Optional[")) and text.endswith("]"):
        return _text_non_array(text[text.index("[") + 1:-1])
    if text.startswith(("Callable", "typing.Callable", "tuple[int", "Tuple[int", "Literal[", "typing.Literal[")):
        return True
    parts = text.split("|")
    return all(p.rpartition(".")[2] in _NON_ARRAY_TYPES for p in parts)


def python_default(d: ast.expr | None) -> bool:
    """A literal number/bool/str/None default: a Python value that ``filter_jit`` keeps static."""
    if isinstance(d, ast.UnaryOp) and isinstance(d.op, ast.USub):
        d = d.operand
    return isinstance(d, ast.Constant) and not isinstance(d.value, bytes)


def only_truth_tested(fn: ast.AST, name: str) -> bool:
    """Is ``name`` read only as a truth value (``if flag:``, ``not flag``, ``flag and ...``) in ``fn``?

    Such an unannotated parameter of a ``filter_jit`` function is a bool flag: an array there
    would fail the same way in eager code, so it is treated as a Python value.
    """
    truth: set[int] = set()
    loads = 0
    for n in ast_walk(fn):
        t = type(n)
        if t in (ast.If, ast.While, ast.IfExp, ast.Assert):
            truth.add(n.test)  # type: ignore[attr-defined]
        elif t is ast.UnaryOp and isinstance(n.op, ast.Not):  # type: ignore[attr-defined]
            truth.add(n.operand)  # type: ignore[attr-defined]
        elif t is ast.BoolOp:
            truth.update(n.values)  # type: ignore[attr-defined]
        elif t is ast.Name and n.id == name and isinstance(n.ctx, ast.Load):  # type: ignore[attr-defined]
            loads += 1
    if not loads:
        return False
    hits = sum(1 for n in ast_walk(fn) if isinstance(n, ast.Name) and n.id == name and n in truth)
    return hits == loads


_CONTAINER_TYPES = frozenset({"Sequence", "MutableSequence", "Iterable", "Collection", "list", "List", "tuple",
                              "Tuple", "dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "NamedTuple"})


def container_annotation(ann: ast.expr | None) -> bool:
    """Is ``ann`` a Python container type (``Sequence[Array]``, ``tuple[Array, Array]``, ``dict[str, Array]``,
    ``Optional[...]`` of one)? Under jit such a parameter is a pytree: the container is a Python object
    (its length and keys are static), only its leaves are traced."""
    if ann is None:
        return False
    text = ast.unparse(ann) if not isinstance(ann, ast.Constant) else str(ann.value)
    text = text.replace(" ", "")
    if text.startswith(("Optional[", "typing.Optional[")) and text.endswith("]"):
        text = text[text.index("[") + 1:-1]
    parts = [p for p in _split_union(text) if p not in ("None",)]
    return bool(parts) and all(p.split("[", 1)[0].rpartition(".")[2] in _CONTAINER_TYPES for p in parts)


def _split_union(text: str) -> list[str]:
    """``A[B|C]|None`` -> ``["A[B|C]", "None"]`` (bars inside brackets do not split)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def used_like_array(fn: ast.AST, name: str) -> bool:
    """Does ``fn`` call a method of ``name`` (``x.max()``)? Then ``name`` holds an array (a Python number
    has no ``.max``), which ``filter_jit`` traces. Indexing is no evidence: tuples are indexed too."""
    for n in ast_walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == name:
            return True
    return False


def used_as_host_size(fn: ast.AST, name: str, resolve) -> bool:
    """Is ``name`` handed straight to ``range``/a NumPy constructor as a size (``np.arange(qlen)``,
    ``np.zeros((n, 3))``: ``values.HOST_SIZE_ARGS``)? Only a Python number works there under jit."""
    for n in ast_walk(fn):
        if not isinstance(n, ast.Call):
            continue
        spec = HOST_SIZE_ARGS.get(resolve(n.func) or "")
        if spec is None:
            continue
        args = [a for i, a in enumerate(n.args) if i in spec[0]] + [k.value for k in n.keywords if k.arg in spec[1]]
        for a in args:
            items = a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a]
            if any(isinstance(e, ast.Name) and e.id == name for e in items):
                return True
    return False


_ENUM_BASES = {"enum.Enum": False, "enum.StrEnum": False, "enum.Flag": False, "enum.IntEnum": True,
               "enum.IntFlag": True}  # base -> its members are ints (jit traces an int passed to it)


def enum_valued(ctx, default: ast.expr | None, ann: ast.expr | None) -> bool:
    """Is the parameter an enum member of an ``enum`` class of this module: a default ``Method.SUM`` (a Python
    value unless the caller passes one, as ``training=False``), or an annotation naming an enum whose members are
    not ints (jit refuses such an argument unless it is static: ``TypeError ... as an abstract array``, so the
    value in a traced function is a Python one; an ``IntEnum`` member passed to jit is traced like an int)."""
    kinds = ctx.memo(_enum_classes)
    if not kinds:
        return False
    if isinstance(default, ast.Attribute) and isinstance(default.value, ast.Name) and default.value.id in kinds:
        return True
    if ann is not None:
        text = ast.unparse(ann).replace(" ", "") if not isinstance(ann, ast.Constant) else str(ann.value)
        if text.startswith("Optional[") and text.endswith("]"):
            text = text[len("Optional["):-1]
        parts = [p for p in text.split("|") if p != "None"]
        return bool(parts) and all(p in kinds and not kinds[p] for p in parts)
    return False


def _enum_classes(ctx) -> dict[str, bool]:
    """Enum classes defined at module level -> whether their members are ints."""
    out: dict[str, bool] = {}
    for stmt in ctx.tree.body:
        if isinstance(stmt, ast.ClassDef):
            for b in stmt.bases:
                q = ctx.info.resolve(b) or ""
                if q in _ENUM_BASES or (isinstance(b, ast.Name) and b.id in out):
                    out[stmt.name] = _ENUM_BASES[q] if q in _ENUM_BASES else out[b.id]  # type: ignore[union-attr]
                    break
    return out
