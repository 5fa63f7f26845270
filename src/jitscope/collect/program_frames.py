"""Which frames are the watched program's own: the line a finding names.

A frame is the *program's* when JAX calls its file user code (``_jaxcompat.is_user_file``: not JAX,
jaxlib or jitscope) and it is neither the standard library nor an installed package (site-packages,
dist-packages): a library that calls JAX is the library's business, and the user's line is further out.
The answers are cached per file name, so walking a stack costs a dictionary lookup per frame.
"""

from __future__ import annotations

import os
import sysconfig
from types import FrameType

from .._jaxcompat import is_user_file
from ..model import Location

_KIND: dict[str, str] = {}  # file name -> "program" | "jax" | "other"
_STDLIB = tuple(os.path.abspath(p) + os.sep for p in {sysconfig.get_paths().get("stdlib", ""),
                                                       sysconfig.get_paths().get("platstdlib", "")} if p)
_INSTALLED = tuple(f"{os.sep}{d}{os.sep}" for d in ("site-packages", "dist-packages"))
_JAX_PACKAGES = ("jax", "jaxlib")
_JITSCOPE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def frame_kind(filename: str) -> str:
    """``program`` (the user's own code), ``jax`` (JAX or jaxlib), ``jitscope`` (its hooks inside the user's
    calls) or ``other`` (libraries, the standard library, frozen modules)."""
    kind = _KIND.get(filename)
    if kind is None:
        kind = _classify(filename)
        _KIND[filename] = kind
    return kind


def _classify(filename: str) -> str:
    if filename.startswith("<"):
        return "program" if is_user_file(filename) else "other"
    path = os.path.abspath(filename)
    parts = path.split(os.sep)
    if any(d in parts for d in ("site-packages", "dist-packages")):
        i = max(i for i, d in enumerate(parts) if d in ("site-packages", "dist-packages"))
        return "jax" if i + 1 < len(parts) and parts[i + 1] in _JAX_PACKAGES else "other"
    if not is_user_file(filename):
        if _under_jax(path):
            return "jax"
        return "jitscope" if path.startswith(_JITSCOPE) else "other"
    if path.startswith(_STDLIB) or any(s in path for s in _INSTALLED):
        return "other"
    return "program"


def _under_jax(path: str) -> bool:
    try:
        import jax
        import jaxlib
    except ImportError:
        return False
    for mod in (jax, jaxlib):
        d = os.path.dirname(os.path.abspath(getattr(mod, "__file__", "") or ""))
        if d and path.startswith(d + os.sep):
            return True
    return False


def location(frame: FrameType) -> Location:
    code = frame.f_code
    return Location(code.co_filename, frame.f_lineno or code.co_firstlineno,
                    function=getattr(code, "co_qualname", code.co_name))


def program_caller(frame: FrameType | None, through: tuple[str, ...] = ("jax",)) -> FrameType | None:
    """The first program frame at or above ``frame``, reached only through frames whose kind is in
    ``through`` (by default JAX's own: the program called JAX directly; a call from jitscope's own
    analysis, or from a library, is not the program's). None when another kind of frame
    (a library, the standard library) comes first, or there is no program frame."""
    f = frame
    while f is not None:
        kind = frame_kind(f.f_code.co_filename)
        if kind == "program":
            return f
        if kind not in through:
            return None
        f = f.f_back
    return None


def innermost_program_frame(frame: FrameType | None, limit: int = 64) -> FrameType | None:
    """The first program frame at or above ``frame``, whatever lies between (at most ``limit`` frames)."""
    f, n = frame, 0
    while f is not None and n < limit:
        if frame_kind(f.f_code.co_filename) == "program":
            return f
        f, n = f.f_back, n + 1
    return None


_EXPECTING: dict[str, list[tuple[int, int]]] = {}  # file -> line spans of `with pytest.raises(...)` blocks
_EXPECTING_NAMES = ("raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises_regex")


def expects_error(frame: FrameType) -> bool:
    """Whether the program's line sits in a block that *asserts* an error (``with pytest.raises(...)``,
    ``with self.assertRaises(...)``): a test of an error path, not a pitfall the program fell into."""
    filename = frame.f_code.co_filename
    spans = _EXPECTING.get(filename)
    if spans is None:
        spans = _EXPECTING[filename] = _expecting_spans(filename)
    line = frame.f_lineno
    return any(a <= line <= b for a, b in spans)


def _expecting_spans(filename: str) -> list[tuple[int, int]]:
    import ast
    import linecache

    text = "".join(linecache.getlines(filename))
    if "raises" not in text and "Raises" not in text:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.With, ast.AsyncWith)):
            continue
        for item in node.items:
            call = item.context_expr
            fn = call.func if isinstance(call, ast.Call) else None
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in _EXPECTING_NAMES:
                spans.append((node.lineno, node.end_lineno or node.lineno))
                break
    return spans
