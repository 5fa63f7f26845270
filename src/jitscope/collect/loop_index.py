"""Which iteration of its loop a program line runs in: the index of the ``for`` statement around it.

JW502 says "a device-to-host round trip per iteration". Counting reads per line cannot tell one read per
iteration from a read every 100 steps over a long run, or from a batch of reads made at once every 100
steps. The loop's own index can: ``for step in range(n):`` around the line gives, at each read, the
iteration it runs in (the frame's local ``step``). The reads' distinct indices over the span of indices
seen are the share of iterations that read. Only a ``for`` statement whose target is one name holding an
``int`` is used (a ``range`` or ``enumerate`` counter); other loops give ``None`` (then the reads are
counted as before). Comprehension frames (Python 3.11) are walked through to the frame that runs the
``for`` statement. Cost: the source is parsed once per file, and a read reads one local of one frame.
"""

from __future__ import annotations

import ast
import linecache
from types import FrameType

_TARGETS: dict[tuple[str, int], str | None] = {}  # (file, line) -> the enclosing for statement's index name
_TREES: dict[str, ast.AST | None] = {}
_COMPREHENSION_CODE = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def loop_index(frame: FrameType) -> int | None:
    """The index of the innermost ``for`` statement around ``frame``'s current line, if it is an int."""
    line = frame.f_lineno
    while frame.f_code.co_name in _COMPREHENSION_CODE and frame.f_back is not None:
        frame = frame.f_back  # the comprehension runs inside the statement of the frame that made it
        line = frame.f_lineno
    key = (frame.f_code.co_filename, line)
    if key not in _TARGETS:
        _TARGETS[key] = _index_name(*key)
    name = _TARGETS[key]
    if name is None:
        return None
    try:
        value = frame.f_locals.get(name)
    except Exception:  # noqa: BLE001 - an exotic frame: no index
        return None
    return value if type(value) is int else None


def _index_name(filename: str, line: int) -> str | None:
    tree = _TREES.get(filename, ...)
    if tree is ...:
        text = "".join(linecache.getlines(filename))
        try:
            tree = ast.parse(text) if text else None
        except (SyntaxError, ValueError):
            tree = None
        _TREES[filename] = tree
    best: ast.For | None = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.For) and node.body and node.body[0].lineno <= line <= (node.end_lineno or 0):
            if best is None or node.lineno > best.lineno:
                best = node
    if best is None:
        return None
    target = best.target
    if isinstance(target, ast.Tuple) and target.elts and isinstance(best.iter, ast.Call) \
            and getattr(best.iter.func, "id", None) == "enumerate":
        target = target.elts[0]  # for i, batch in enumerate(loader)
    return target.id if isinstance(target, ast.Name) else None
