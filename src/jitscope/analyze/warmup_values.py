"""The values a warm-up script rebuilds, checked from a run: never text copied into code (issues #23, #26).

A watch run is a file anyone can edit. Each compile's ``rebuild`` record (``collect/warmup_record.py``)
holds the jit call as value records (JSON lists). ``from_record`` reads one back into the tuple form the
warm-up's runtime rebuilds (``_warmup_runtime.rebuild``, whose docstring lists the kinds), checking every
field: kinds from a closed list, names that will be looked up (modules, qualified names, attributes,
keywords) Python identifiers (``identifier`` / ``dotted_name``), dtypes from the known list, shapes lists of
sizes, literals read with ``ast.literal_eval`` and kept only when they survive ``repr`` -> ``literal_eval``
(``literal_value``), nesting and size bounded. What comes out is made of Python literals only, so the
renderer writes it as a literal (``render/warmup_script.py``) and nothing of the run is ever code.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from typing import Any

from ..model import DTYPE_SHORT

MAX_LITERAL_CHARS = 100_000  # a static value's recorded text; longer is not pasted into a script
MAX_DEPTH = 150  # nesting of one record (the runtime refuses deeper than 200)
MAX_VALUES = 50_000  # values in one call's records
_KEY_DTYPE = re.compile(r"key:[A-Za-z_][A-Za-z0-9_]*")


class NotRebuildable(ValueError):
    """A recorded value or name the script cannot rebuild exactly (the message says why, in one line)."""


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


def literal_value(text: str) -> Any:
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
    return value


def from_record(record: Any) -> tuple:
    """A value record of a run (JSON form) as the runtime's tuple form, every field checked.

    Raises:
        NotRebuildable: a kind, name, dtype, shape or literal that is not what a recording writes.
    """
    return _Reader().value(record, 0)


def tree_from_record(record: Any) -> tuple | None:
    """A tree-structure record (``None`` for a leaf, else ``[type, aux, children]``), checked."""
    return _Reader().tree(record, 0)


class _Reader:
    def __init__(self) -> None:
        self.left = MAX_VALUES

    def value(self, r: Any, depth: int) -> tuple:
        self.left -= 1
        if depth > MAX_DEPTH or self.left < 0:
            raise NotRebuildable("a rebuild record nested too deeply or too large")
        if not isinstance(r, list) or not r or not isinstance(r[0], str):
            raise NotRebuildable("a rebuild record that is not a value record")
        kind, n = r[0], len(r)
        if kind == "array" and n == 6:
            return self.array(r)
        if kind == "literal" and n == 2 and isinstance(r[1], str):
            return ("literal", literal_value(r[1]))
        if kind == "ref" and n == 4:
            return self.ref(r)
        if kind in ("tuple", "list", "frozenset") and n == 2 and isinstance(r[1], list):
            return (kind, tuple(self.value(x, depth + 1) for x in r[1]))
        if kind == "dict" and n == 2 and isinstance(r[1], list):
            return ("dict", tuple(self.pair(p, depth) for p in r[1]))
        if kind == "tree" and n == 3 and isinstance(r[2], list):
            leaves = tuple(self.value(x, depth + 1) for x in r[2])
            if any(leaf[0] != "array" for leaf in leaves):
                raise NotRebuildable("a pytree record whose leaves are not arrays")
            return ("tree", self.tree(r[1], depth + 1), leaves)
        if kind == "treedef" and n == 2:
            return ("treedef", self.tree(r[1], depth + 1))
        if kind == "namedtuple" and n == 3 and isinstance(r[2], list):
            return ("namedtuple", self.ref(r[1]), tuple(self.value(x, depth + 1) for x in r[2]))
        if kind == "object" and n == 3 and isinstance(r[2], list):
            attrs = []
            for p in r[2]:
                if not (isinstance(p, list) and len(p) == 2):
                    raise NotRebuildable("an object record whose attributes are not (name, value) pairs")
                attrs.append((identifier(p[0], "attribute"), self.value(p[1], depth + 1)))
            return ("object", self.ref(r[1]), tuple(attrs))
        raise NotRebuildable(f"a rebuild record of unknown kind {_shown(kind)}")

    def pair(self, p: Any, depth: int) -> tuple:
        if not (isinstance(p, list) and len(p) == 2):
            raise NotRebuildable("a dict record whose items are not (key, value) pairs")
        return (self.value(p[0], depth + 1), self.value(p[1], depth + 1))

    def tree(self, t: Any, depth: int) -> tuple | None:
        self.left -= 1
        if depth > MAX_DEPTH or self.left < 0:
            raise NotRebuildable("a tree-structure record nested too deeply or too large")
        if t is None:
            return None
        if not (isinstance(t, list) and len(t) in (3, 4) and isinstance(t[2], list) and t[3:] in ([], ["dataclass"])):
            raise NotRebuildable("a tree-structure record that is not (type, aux, children[, 'dataclass'])")
        layout = tuple(t[3:])  # a registered dataclass node recorded on JAX 0.6 (_warmup_runtime.treedef)
        return (self.ref(t[0]), self.value(t[1], depth + 1), tuple(self.tree(c, depth + 1) for c in t[2])) + layout

    @staticmethod
    def ref(r: Any) -> tuple:
        if not (isinstance(r, list) and len(r) == 4 and r[0] == "ref"):
            raise NotRebuildable("a reference record that is not ('ref', module, qualname, unwrap)")
        _, module, qualname, unwrap = r
        if type(unwrap) is not int or not 0 <= unwrap <= 8:
            raise NotRebuildable("a reference record with a bad unwrap count")
        return ("ref", dotted_name(module), dotted_name(qualname, "qualified name"), unwrap)

    @staticmethod
    def array(r: list) -> tuple:
        _, shape, dtype, weak, device, memory_kind = r
        if not (isinstance(shape, list) and len(shape) <= 64 and all(type(d) is int and d >= 0 for d in shape)):
            raise NotRebuildable("an array record whose shape is not a list of sizes")
        if not (isinstance(dtype, str) and (dtype in DTYPE_SHORT or _KEY_DTYPE.fullmatch(dtype))):
            raise NotRebuildable(f"an array of dtype {_shown(dtype)}, not a standard dtype")
        if type(weak) is not bool:
            raise NotRebuildable("an array record whose weak type is not true or false")
        if device is not None and not (type(device) is int and device >= 0):
            raise NotRebuildable("an array record whose device is not a device id")
        if memory_kind is not None:
            identifier(memory_kind, "memory kind")
        return ("array", tuple(shape), dtype, weak, device, memory_kind)


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
