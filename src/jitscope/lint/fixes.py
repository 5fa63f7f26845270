"""Apply fixes to source text and show them as a unified diff.

A fix is a ``model.Fix`` whose ``location`` is the range it replaces (1-based lines,
1-based character columns, end exclusive) and ``replacement`` the new text. Only fixes
whose safety is allowed are applied; overlapping fixes are skipped (the next run picks
them up); a result that no longer parses is thrown away, so ``--fix`` never writes a
broken file.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable

from ..model import Finding, Fix
from .source import line_starts


def _offset(starts: list[int], text: str, line: int, column: int) -> int | None:
    if not 1 <= line <= len(starts):
        return None
    off = starts[line - 1] + column - 1
    end = starts[line] if line < len(starts) else len(text)
    return off if starts[line - 1] <= off <= end else None


def fixes_for(findings: Iterable[Finding], safeties: Iterable[str]) -> list[Fix]:
    """The fixes of ``findings`` with a replacement and one of the allowed ``safeties``."""
    allowed = set(safeties)
    return [f.fix for f in findings if f.fix is not None and f.fix.replacement is not None
            and f.fix.location is not None and f.fix.safety in allowed]


def apply_fixes(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """Apply non-overlapping ``fixes`` to ``text``; returns (new text, number applied)."""
    starts = line_starts(text)
    edits: list[tuple[int, int, str]] = []
    for fx in fixes:
        loc = fx.location
        if loc is None or fx.replacement is None or loc.column is None or loc.end_column is None:
            continue
        a = _offset(starts, text, loc.line, loc.column)
        b = _offset(starts, text, loc.end_line or loc.line, loc.end_column)
        if a is None or b is None or b < a:
            continue
        edits.append((a, b, fx.replacement))
    edits.sort()
    chosen: list[tuple[int, int, str]] = []
    for e in edits:
        if chosen and e[0] < chosen[-1][1]:
            continue  # overlaps the previous edit: leave it for the next run
        chosen.append(e)
    if not chosen:
        return text, 0
    parts, pos = [], 0  # one pass: slicing per edit would copy the file once per fix
    for a, b, repl in chosen:
        parts += (text[pos:a], repl)
        pos = b
    parts.append(text[pos:])
    new = "".join(parts)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(new)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text, 0
    return new, len(chosen)


def unified_diff(old: str, new: str, path: str) -> str:
    """A ``git diff``-style unified diff of one file."""
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path.lstrip('/')}", tofile=f"b/{path.lstrip('/')}"))
