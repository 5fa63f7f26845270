"""The values a warm-up script rebuilds, as values: never as text copied from a run (issue #23 item 1).

A watch run is a file anyone can edit, and even an honest one holds text with newlines (a static
config object's multi-line ``repr``). So nothing read from a run is pasted into generated code. The
plan (``warmup_plan.py``) turns each recorded argument into one of the nodes below, after checking it;
the renderer (``render/warmup_script.py``) turns each node into a Python AST node, one emitter per node
kind, and only ``ast.unparse`` writes text:

* ``ArraySpec``: one array leaf (``S(shape, dtype, weak_type=..., device=..., memory_kind=...)``);
* ``Literal``: a static value, rebuilt from the Python value ``ast.literal_eval`` read from its recorded
  text, kept only when that value is made of literal types and survives ``repr`` -> ``literal_eval``;
* ``Container``: a tuple, list or dict of nodes (a pytree of builtin containers; ``None`` is a
  ``Literal``).

A new kind of argument (a custom pytree rebuilt through its treedef, issue #26) is a new node class here
and one emitter registered in the renderer; names that reach code (modules, functions, parameters) go
through ``identifier`` / ``dotted_name``, which refuse anything but Python identifiers.
"""

from __future__ import annotations

import ast
import keyword
import math
from dataclasses import dataclass, field
from typing import Any

MAX_LITERAL_CHARS = 100_000  # a static value's recorded text; longer is not pasted into a script


class NotRebuildable(ValueError):
    """A recorded value or name the script cannot rebuild exactly (the message says why, in one line)."""


@dataclass(frozen=True)
class ArraySpec:
    """One array argument: ``jax.ShapeDtypeStruct(shape, dtype, weak_type, sharding)``; ``device`` is a
    committed array's ``jax.devices()`` id (None: uncommitted)."""

    shape: tuple[int, ...]
    dtype: str
    weak_type: bool = False
    device: int | None = None
    memory_kind: str | None = None


@dataclass(frozen=True)
class Literal:
    """A static value, as the Python value itself (checked by ``literal_value``)."""

    value: Any


@dataclass(frozen=True)
class Container:
    """A pytree node of a builtin container: ``kind`` is ``tuple``, ``list`` or ``dict``; ``items`` are
    nodes (for a dict, ``keys`` are its keys, each a str or int, in the recorded order)."""

    kind: str
    items: tuple[Any, ...] = ()
    keys: tuple[str | int, ...] = field(default=())


Node = ArraySpec | Literal | Container

_ATOMS = (type(None), bool, int, float, complex, str, bytes)


def identifier(text: object, what: str = "name") -> str:
    """``text`` when it is a Python identifier that is not a keyword; else ``NotRebuildable``."""
    if not isinstance(text, str) or not text.isidentifier() or keyword.iskeyword(text):
        raise NotRebuildable(f"its {what} {_shown(text)} is not a Python identifier")
    return text


def dotted_name(text: object, what: str = "module") -> str:
    """``pkg.mod`` when every part is an identifier (``identifier``); else ``NotRebuildable``."""
    if not isinstance(text, str) or not text:
        raise NotRebuildable(f"its {what} {_shown(text)} is not a dotted Python name")
    for part in text.split("."):
        if not part.isidentifier() or keyword.iskeyword(part):
            raise NotRebuildable(f"its {what} {_shown(text)} is not a dotted Python name")
    return text


def literal_value(text: str) -> Literal:
    """The static value whose recorded text is ``text``, when it is a round-trippable literal.

    Raises:
        NotRebuildable: not a literal (an object's repr, a multi-line config repr, a NumPy scalar), a
            value of another type than the literal types, or one ``repr`` would not give back.
    """
    if not isinstance(text, str) or len(text) > MAX_LITERAL_CHARS:
        raise NotRebuildable("its recorded text is not a Python literal")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise NotRebuildable("its recorded text is not a Python literal") from None
    if not _literal_types(value):
        raise NotRebuildable("its value is not made of literal types")
    try:
        again = ast.literal_eval(repr(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise NotRebuildable("its value does not survive repr and literal_eval") from None
    if not _same(value, again):
        raise NotRebuildable("its value does not survive repr and literal_eval")
    return Literal(value)


def _literal_types(value: Any, depth: int = 0) -> bool:
    if depth > 50:
        return False
    if type(value) in _ATOMS:
        return not (isinstance(value, float) and not math.isfinite(value)) and \
            not (isinstance(value, complex) and not (math.isfinite(value.real) and math.isfinite(value.imag)))
    if type(value) in (tuple, list, set):
        return all(_literal_types(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(_literal_types(k, depth + 1) and _literal_types(v, depth + 1) for k, v in value.items())
    return False


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``1 == 1.0 == True`` would hide a changed type)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and a == 0.0:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def _shown(text: object) -> str:
    """A name from a run as a message may show it: repr'd (escapes included), and short."""
    r = repr(text)
    return r if len(r) <= 60 else r[:57] + "..."
