"""Source text handling: decoding per PEP 263, parse findings, ``# noqa`` comments."""

from __future__ import annotations

import re
import tokenize
from itertools import accumulate, repeat
from operator import add

from ..model import Finding

_NEWLINE = re.compile(r"\r\n|\r|\n")


class LazyPattern:
    """A regular expression compiled when first used, not when its module is imported: most lints of a file
    never use a pattern that only ``# noqa`` comments or package modules need (~0.1-0.5 ms each to compile,
    docs/architecture.md, "What a command imports"). ``search``, ``match``, ... are the compiled pattern's
    own methods once asked for (bound on the instance: no lookup through this class after the first)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str):  # noqa: ANN204 - the compiled pattern's attribute
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value


def split_lines(text: str) -> list[str]:
    """Source lines as Python's parser counts them (``\\n``, ``\\r\\n``, ``\\r``; not form feeds)."""
    return _NEWLINE.split(text)


def line_starts(text: str) -> list[int]:
    """Offset of the start of each line, as Python's parser numbers them."""
    if "\r" in text:
        return [0] + [m.end() for m in _NEWLINE.finditer(text)]
    # Only "\n" ends a line: each line starts one past the end of the one before (the same offsets as the
    # regular expression's, without a Python-level step per line: this ran for every linted file).
    return list(accumulate(map(add, map(len, text.split("\n")[:-1]), repeat(1)), initial=0))


_CONT = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes: every other byte starts a character
_STEP = 1 << 14
_NON_ASCII_STR = re.compile(r"[^\x00-\x7f]")
_ALL = 1 << 62  # "no non-ASCII character on this line": every byte column is a character column


class SourceIndex:
    """Line offsets of one text, computed once, so slicing by ast positions is linear in the file.

    ``ast.get_source_segment`` re-splits the whole text on every call (quadratic with many
    findings); this keeps the line starts and converts ast's UTF-8 byte columns to character
    columns with per-line checkpoints, so one conversion costs at most ``_STEP`` bytes.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self._ascii = text.isascii()  # then byte columns are character columns
        self._checkpoints: dict[int, list] = {}  # line -> [first non-ASCII column, (bytes, counts) or None]

    def line(self, line: int) -> str:
        """Line ``line`` (1-based) without its line ending; ``""`` out of range."""
        if not 1 <= line <= len(self.starts):
            return ""
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return self.text[self.starts[line - 1]:end].rstrip("\r\n")

    def char_col(self, line: int, byte_col: int) -> int:
        """0-based character column from ast's UTF-8 byte offset on ``line``."""
        if self._ascii or not 1 <= line <= len(self.starts):
            return byte_col
        cp = self._checkpoints.get(line)
        if cp is None:
            # Only where the line's first non-ASCII character is: columns before it (most findings,
            # with a non-ASCII comment or string later on the line) need no byte counting at all.
            src = self.line(line)
            first = _NON_ASCII_STR.search(src)
            cp = self._checkpoints[line] = [first.start() if first else _ALL, None]
        if byte_col <= cp[0]:
            return byte_col
        if cp[1] is None:
            data = self.line(line).encode("utf-8")
            counts = [0]
            for k in range(0, len(data), _STEP):
                counts.append(counts[-1] + len(data[k:k + _STEP].translate(None, _CONT)))
            cp[1] = (data, counts)
        data, counts = cp[1]
        k = min(byte_col, len(data)) // _STEP
        return counts[k] + len(data[k * _STEP:byte_col].translate(None, _CONT))

    def offset(self, line: int, byte_col: int) -> int:
        """Character offset in the text of an ast (line, byte column) position."""
        line = min(max(line, 1), len(self.starts))
        return self.starts[line - 1] + self.char_col(line, byte_col)

    def segment(self, node: object) -> str:
        """Exact source text of an ast node (``""`` without positions), like ``ast.get_source_segment``."""
        try:
            a = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
            b = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            return ""
        return self.text[a:b]


NOQA = LazyPattern(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)


def parse_noqa(text: str) -> dict[int, set[str] | None]:
    """Line -> suppressed codes (None = all) from ``# noqa`` / ``# noqa: JS101,JS102`` comments."""
    out: dict[int, set[str] | None] = {}
    if "noqa" not in text and "NOQA" not in text:
        return out
    try:
        import io

        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                m = NOQA.search(tok.string)
                if m:
                    codes = m.group("codes")
                    out[tok.start[0]] = None if not codes else {c.upper() for c in re.split(r"[\s,]+", codes) if c}
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def _suppressed(f: Finding, noqa: dict[int, set[str] | None]) -> bool:
    if f.location is None:
        return False
    for line in {f.location.line, f.location.end_line or f.location.line}:
        if line in noqa:
            codes = noqa[line]
            if codes is None or f.code in codes:
                return True
    return False


def decode_bytes(data: bytes) -> tuple[str | None, tuple[str, int] | None]:
    """Decode file bytes per PEP 263 (coding cookie, BOM): ``(text, None)``, or ``(None, (why, line))``."""
    import io

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as e:
        reason = getattr(e, "reason", None) or (str(e).splitlines() or [type(e).__name__])[0]
        line = data[: e.start].count(b"\n") + 1 if isinstance(e, UnicodeDecodeError) else 1
        return None, (f"file is not decodable Python source: {reason}", line)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None
