"""``--add-noqa``: write ``# noqa: JSxxx`` comments on the lines of a file's findings.

Like ruff's ``--add-noqa``: each finding's line gets a ``# noqa`` comment with its codes, merged
into a ``# noqa: ...`` comment already there, or appended after another comment. A line whose
end lies inside a multi-line string or that continues with a backslash cannot take a comment;
the finding's last line is used instead (``# noqa`` suppresses a finding on its first or last
line), else it is left alone. Running it again adds nothing: the findings are suppressed. The
result must parse and must suppress what it was written for, else the file is left untouched.
The file is rewritten like ``--fix`` does (``write.write_fixed``): same inode and mode, its
encoding, BOM and line endings kept, and not at all if it changed since it was read.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Iterable
from pathlib import Path

from ..model import Finding
from .source import NOQA, decode_bytes, line_starts, parse_noqa, split_lines
from .write import write_fixed

# Findings about the file itself (syntax, encoding, nesting): there is no line to annotate safely.
_FILE_CODES = ("JS001", "JS002", "JS003", "JS004")


def _blocked_lines(text: str) -> tuple[set[int], dict[int, tokenize.TokenInfo]]:
    """Lines whose end cannot take a comment, and each line's existing comment token."""
    blocked: set[int] = set()
    comments: dict[int, tokenize.TokenInfo] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok
        elif tok.start[0] < tok.end[0] and tok.type not in (tokenize.NL, tokenize.NEWLINE):
            blocked.update(range(tok.start[0], tok.end[0]))  # inside a multi-line string / f-string part
    for n, line in enumerate(split_lines(text), 1):
        if line.rstrip().endswith("\\") and n not in comments:
            blocked.add(n)
    return blocked, comments


def add_noqa_comments(text: str, findings: Iterable[Finding]) -> tuple[str, int]:
    """``text`` with ``# noqa: CODES`` comments for ``findings``; returns (new text, comments written)."""
    wanted: dict[int, set[str]] = {}
    try:
        blocked, comments = _blocked_lines(text)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text, 0
    for f in findings:
        if f.location is None or f.code in _FILE_CODES:
            continue
        first, last = f.location.line, f.location.end_line or f.location.line
        line = next((n for n in (first, last) if n not in blocked), None)
        if line is not None:
            wanted.setdefault(line, set()).add(f.code)
    if not wanted:
        return text, 0
    starts = line_starts(text)
    parts, pos = [], 0
    for line in sorted(wanted):
        if line > len(starts):
            continue
        begin = starts[line - 1]
        end = starts[line] if line < len(starts) else len(text)
        body = text[begin:end]
        stripped = body.rstrip("\r\n")
        eol = body[len(stripped):]
        new_line = _with_codes(stripped, wanted[line], comments.get(line))
        parts += (text[pos:begin], new_line, eol)
        pos = end
    parts.append(text[pos:])
    new = "".join(parts)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(new)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text, 0
    noqa = parse_noqa(new)
    if any(line not in noqa or (noqa[line] is not None and not codes <= noqa[line])  # type: ignore[operator]
           for line, codes in wanted.items()):
        return text, 0
    return new, len(wanted)


def _with_codes(line: str, codes: set[str], comment: tokenize.TokenInfo | None) -> str:
    if comment is not None:
        m = NOQA.search(comment.string)
        if m is not None:
            if not m.group("codes"):
                return line  # a bare directive (no codes) already covers every code
            have = [c for c in re.split(r"[\s,]+", m.group("codes")) if c]
            merged = have + sorted(c for c in codes if c.upper() not in {h.upper() for h in have})
            start = comment.start[1] + m.start()
            # tokenize columns count characters of the line, as str indexing does
            return line[:start] + _directive(merged) + line[start + len(m.group(0)):]
    return f"{line.rstrip()}  {_directive(sorted(codes))}"


def _directive(codes: list[str]) -> str:
    return "#" + " noqa: " + ", ".join(codes)  # split so that linters reading this file see no directive


def add_noqa_to_file(path: str, findings: list[Finding]) -> tuple[int, str | None]:
    """Write noqa comments for ``findings`` into ``path``: (comments written, why nothing was written or None)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return 0, f"cannot read file: {e.strerror or e}"
    text, problem = decode_bytes(data)
    if text is None:
        return 0, problem[0] if problem else "not decodable"
    new, count = add_noqa_comments(text, findings)
    if not count:
        return 0, None
    why = write_fixed(path, data, new)
    return (0, why) if why else (count, None)
