"""Argument pytrees summarised by structure: ``model=MLP(layers=[6 x Linear(weight=f32[32,32], bias=f32[32])])``.

A model's parameters are hundreds of leaves; listed one by one (``model.layers[0].weight=f32[32,32],
model.layers[0].bias=f32[32], ...``) they bury everything else a report says. The summary keeps
what a reader needs: each argument's containers and classes, field and key names, and the leaves'
types, with runs of equal siblings folded into ``N x ...``. Every command that shows a call's
arguments (watch, inspect, compare, warmup) uses this one summariser; the full leaf list stays in
the JSON and, in the HTML, folded under the summary.

Input is an ``ArgSignature`` as recorded: array leaves with their paths (``jax.tree_util.keystr``
after the parameter's name), static values by path, and each parameter's tree structure as JAX prints
it (``model: PyTreeDef(CustomNode(MLP[...], [[CustomNode(Linear[...], [*, *]), ...]]))``). The
paths give names and nesting; the printed structure gives class names (custom nodes: equinox
Modules, registered dataclasses, flax structs) and list/tuple/dict kinds. Where the printed
structure cannot be read or does not line up with the paths, the summary goes on without class
names (``model=(layers=[6 x (weight=f32[32,32], bias=f32[32])])``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..model import ArgSignature

MAX_CHARS = 160  # one argument's summary; deeper levels fold into "Name(12 leaves)" past it
MAX_STATIC_CHARS = 40

_KEY = re.compile(r"""\.([A-Za-z_]\w*)|\[('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\]]*)\]""")
_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass
class _Node:
    """One level of an argument's tree: a leaf (``text``) or children by their path key."""

    text: str | None = None  # a leaf's type (f32[32,32]) or a static value's repr
    children: dict[str, _Node] = field(default_factory=dict)
    kind: str = ""  # from the printed structure: "list", "tuple", "dict", "custom", "" (unknown)
    cls: str = ""  # a custom node's class name
    leaves: int = 0

    def count(self) -> int:
        self.leaves = 1 if self.text is not None else sum(c.count() for c in self.children.values())
        return self.leaves


def _split(path: str) -> tuple[str, list[str]]:
    """``model.layers[0].weight`` -> (``model``, [``.layers``, ``[0]``, ``.weight``])."""
    m = _NAME.match(path)
    name = m.group(0) if m else ""
    rest = path[len(name):]
    keys, pos = [], 0
    for k in _KEY.finditer(rest):
        if k.start() != pos:
            return path, []  # not a keystr: the whole path names one leaf
        keys.append("." + k.group(1) if k.group(1) else "[" + k.group(2) + "]")
        pos = k.end()
    return (name, keys) if pos == len(rest) else (path, [])


# -- the printed tree structure ----------------------------------------------------------------------
@dataclass
class _Shape:
    kind: str  # "leaf", "none", "list", "tuple", "dict", "custom"
    cls: str = ""
    children: list[_Shape] = field(default_factory=list)


class _Unreadable(Exception):
    pass


def _match_close(text: str, i: int) -> int:
    """Index just past the bracket that closes the one at ``text[i]`` (quotes respected)."""
    depth, quote = 0, ""
    for j in range(i, len(text)):
        ch = text[j]
        if quote:
            if ch == quote and text[j - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    raise _Unreadable(text)


def _parse(text: str, i: int) -> tuple[_Shape, int]:
    while text.startswith(" ", i):
        i += 1
    if text.startswith("*", i):
        return _Shape("leaf"), i + 1
    if text.startswith("None", i):
        return _Shape("none"), i + 4
    if text.startswith("CustomNode(", i):
        j = i + len("CustomNode(")
        b = text.index("[", j)
        cls = text[j:b].strip()
        j = _match_close(text, b)  # past the aux data
        if cls == "namedtuple":  # CustomNode(namedtuple[Point], ...): the class is the aux data
            cls = text[b + 1:j - 1].strip()
        if not text.startswith(", ", j) or not text.startswith("[", j + 2):
            raise _Unreadable(text)
        children, j = _items(text, j + 2, "]")
        if not text.startswith(")", j):
            raise _Unreadable(text)
        return _Shape("custom", cls.split(".")[-1], children), j + 1
    if text.startswith("[", i):
        children, j = _items(text, i, "]")
        return _Shape("list", children=children), j
    if text.startswith("(", i):
        children, j = _items(text, i, ")")
        return _Shape("tuple", children=children), j
    if text.startswith("{", i):
        children, j = _items(text, i, "}", keyed=True)
        return _Shape("dict", children=children), j
    raise _Unreadable(text)


def _items(text: str, i: int, close: str, keyed: bool = False) -> tuple[list[_Shape], int]:
    """The comma-separated nodes from ``text[i]`` (an opening bracket) to its ``close``."""
    out: list[_Shape] = []
    j = i + 1
    while True:
        while text.startswith(" ", j):
            j += 1
        if text.startswith(close, j):
            return out, j + 1
        if keyed:  # 'key': node
            k = j
            if text[k] in "'\"":
                k = _match_close_quote(text, k)
            colon = text.index(":", k)
            j = colon + 1
        node, j = _parse(text, j)
        out.append(node)
        while text.startswith(" ", j):
            j += 1
        if text.startswith(",", j):
            j += 1


def _match_close_quote(text: str, i: int) -> int:
    q = text[i]
    j = i + 1
    while j < len(text) and not (text[j] == q and text[j - 1] != "\\"):
        j += 1
    return j + 1


def _shapes(treedef: str) -> dict[str, _Shape]:
    """Each parameter's printed structure (``name: PyTreeDef(...)`` lines; one unnamed line: key "")."""
    out: dict[str, _Shape] = {}
    for line in treedef.splitlines():
        name, sep, rest = line.partition(": PyTreeDef(")
        if not sep:
            name, rest = "", line[len("PyTreeDef("):] if line.startswith("PyTreeDef(") else ""
        if not rest.endswith(")"):
            continue
        try:
            shape, end = _parse(rest[:-1], 0)
        except (_Unreadable, ValueError, IndexError):
            continue
        if end == len(rest) - 1:
            out[name.strip()] = shape
    return out


def _label(node: _Node, shape: _Shape) -> bool:
    """Put the printed structure's kinds and class names on ``node``; False where they do not line up."""
    if shape.kind in ("leaf",):
        return node.text is not None
    if node.text is not None:
        return False
    real = [s for s in shape.children if s.kind != "none" and not (s.kind in ("list", "tuple", "dict") and
                                                                   not s.children)]
    if len(real) != len(node.children):
        return False
    inner = [c for c in node.children.values() if c.text is None]
    inner_shapes = [s for s in real if s.kind != "leaf"]
    if len(inner) != len(inner_shapes):
        return False
    node.kind, node.cls = shape.kind, shape.cls
    return all(_label(c, s) for c, s in zip(inner, inner_shapes))


# -- rendering --------------------------------------------------------------------------------------
def _key_text(key: str) -> str:
    if key.startswith("."):
        return key[1:]
    inner = key[1:-1]
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        inner = inner[1:-1]
    return inner


def _runs(items: list[tuple[str, str]]) -> list[tuple[list[str], str]]:
    """Consecutive children with equal summaries, as (their keys, the summary)."""
    out: list[tuple[list[str], str]] = []
    for key, text in items:
        if out and out[-1][1] == text:
            out[-1][0].append(key)
        else:
            out.append(([key], text))
    return out


def _render(node: _Node, depth: int) -> str:
    if node.text is not None:
        return node.text
    if depth <= 0:
        count = f"{node.leaves} leaves"
        return (f"{node.cls}({count})" if node.kind == "custom" else f"[{count}]" if node.kind == "list" else
                "{" + count + "}" if node.kind == "dict" else f"({count})")
    items = [(k, _render(c, depth - 1)) for k, c in node.children.items()]
    named = any(k.startswith(".") or k.startswith("['") or k.startswith('["') for k, _ in items)
    parts = []
    for keys, text in _runs(items):
        n = len(keys)
        if not named:  # positions: [6 x Linear(...)]
            parts.append(f"{n} x {text}" if n > 1 else text)
        elif n >= 3:
            sep = "=" if keys[0].startswith(".") else ": "
            parts.append(f"{_key_text(keys[0])}..{_key_text(keys[-1])}{sep}{n} x {text}")
        else:
            parts += [f"{_key_text(k)}{'=' if k.startswith('.') else ': '}{text}" for k in keys]
    body = ", ".join(parts)
    if node.kind == "custom":
        return f"{node.cls}({body})"
    if node.kind == "tuple":
        return f"({body}{',' if len(node.children) == 1 else ''})"
    if node.kind == "dict" or (not node.kind and named and not items[0][0].startswith(".")):
        return "{" + body + "}"
    if node.kind == "list" or not named:
        return f"[{body}]"
    return f"({body})"


def _argument(node: _Node, limit: int) -> str:
    text = _render(node, 64)
    depth = 8
    while len(text) > limit and depth > 0:
        text = _render(node, depth)
        depth -= 1
    return text


def _static(value: str) -> str:
    return value if len(value) <= MAX_STATIC_CHARS else value[:MAX_STATIC_CHARS - 3] + "..."


def summarise(signature: ArgSignature | None, limit: int = MAX_CHARS) -> str:
    """The call's arguments by structure, one ``name=summary`` per parameter, statics last.

    ``x=f32[16,32], model=MLP(layers=[6 x Linear(weight=f32[32,32], bias=f32[32])]), lr=0.1``.
    A parameter whose summary passes ``limit`` characters shows its deeper levels folded
    (``Block(12 leaves)``). The empty string for no signature.
    """
    if signature is None:
        return ""
    entries = [(leaf.path, leaf.short()) for leaf in signature.leaves]
    entries += [(path, _static(value)) for path, value in signature.static.items()]
    return _summarise(entries, len(signature.leaves), signature.treedef, limit)


def summarise_typed(values: Sequence[tuple[str, str]], treedef: str = "", limit: int = MAX_CHARS) -> str:
    """(path, type) pairs summarised as ``summarise`` does: a jaxpr's inputs (``model.layers[0].weight``,
    ``f32[32,32]``), with the call's ``treedef`` for class names where the paths are the call's."""
    return _summarise(list(values), len(values), treedef, limit)


def _summarise(entries: list[tuple[str, str]], n_leaves: int, treedef: str, limit: int) -> str:
    roots: dict[str, _Node] = {}
    top_static: list[tuple[str, str]] = []
    for i, (path, text) in enumerate(entries):
        name, keys = _split(path)
        if not keys:
            if i >= n_leaves:
                top_static.append((path, text))
            else:
                roots.setdefault(path, _Node(text=text))
            continue
        node = roots.setdefault(name, _Node())
        if node.text is not None:  # a name seen as a leaf and as a tree: not a keystr after all
            roots[path] = _Node(text=text)
            continue
        for key in keys:
            node = node.children.setdefault(key, _Node())
        node.text = text
    shapes = _shapes(treedef)
    parts = []
    for name, node in roots.items():
        node.count()
        shape = shapes.get(name)
        if shape is not None and node.text is None and not _label(node, shape):
            _clear(node)
        summary = _argument(node, limit)
        parts.append(f"{name}={summary}" if name else summary)
    parts += [f"{name}={text}" for name, text in top_static]
    return ", ".join(parts)


def _clear(node: _Node) -> None:
    node.kind, node.cls = "", ""
    for c in node.children.values():
        _clear(c)


def leaf_list(signature: ArgSignature | None) -> list[str]:
    """Every leaf as recorded, ``path=f32[32,32]`` (static values too): what the summary folds."""
    if signature is None:
        return []
    return ([f"{leaf.path}={leaf.short()}" if leaf.path else leaf.short() for leaf in signature.leaves]
            + [f"{k}={v}" for k, v in signature.static.items()])


def folds_leaves(signature: ArgSignature | None) -> bool:
    """Whether the summary stands for more than it shows: some argument is a tree of several values."""
    if signature is None:
        return False
    names = [_split(p)[0] for p in [leaf.path for leaf in signature.leaves] + list(signature.static)]
    return len(names) != len(set(names))
