"""Source text handling: decoding per PEP 263, parse findings, ``# noqa`` comments."""

from __future__ import annotations

import re
import tokenize

from ..model import Finding

_NEWLINE = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Source lines as Python's parser counts them (``\\n``, ``\\r\\n``, ``\\r``; not form feeds)."""
    return _NEWLINE.split(text)


def line_starts(text: str) -> list[int]:
    """Offset of the start of each line, as Python's parser numbers them."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)


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
