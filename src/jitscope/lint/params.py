"""Which parameters of a traced function hold Python values rather than tracers.

Wrappers decide this differently: ``jax.jit`` traces every argument not named static;
``equinox.filter_jit`` (and Flax's ``compact`` ``__call__``) traces only the array
leaves, so a parameter annotated ``int | None`` or a bare ``flag`` used only as a truth
value is a Python value there. These checks look at one parameter and its function.
"""

from __future__ import annotations

import ast

_NON_ARRAY_TYPES = frozenset({"int", "bool", "str", "float", "None", "Callable", "type", "tuple", "dict", "list",
                              "Sequence", "Mapping", "Literal", "complex"})


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
    for n in ast.walk(fn):
        t = type(n)
        if t in (ast.If, ast.While, ast.IfExp, ast.Assert):
            truth.add(id(n.test))  # type: ignore[attr-defined]
        elif t is ast.UnaryOp and isinstance(n.op, ast.Not):  # type: ignore[attr-defined]
            truth.add(id(n.operand))  # type: ignore[attr-defined]
        elif t is ast.BoolOp:
            truth.update(id(v) for v in n.values)  # type: ignore[attr-defined]
        elif t is ast.Name and n.id == name and isinstance(n.ctx, ast.Load):  # type: ignore[attr-defined]
            loads += 1
    if not loads:
        return False
    hits = sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and id(n) in truth)
    return hits == loads
