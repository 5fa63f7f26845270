"""Is a file that does not parse valid for a newer Python? (JS001's severity)

The linter parses with the Python it runs on. A file that uses a newer grammar (PEP 695's
``type X = ...`` and ``def f[T]()``, PEP 701's nested f-string quotes, PEP 758's unparenthesised
``except A, B:``, PEP 750's t-strings) is not broken: it is valid for the Python its project targets.
Two independent signs say so, either one enough:

- the failing line starts a construct of a newer grammar (``NEWER_SYNTAX``: the statement forms only a
  newer Python accepts, recognised by their tokens, not by any library's code), or
- the project's declared lower bound of Python (``requires-python`` in the nearest ``pyproject.toml``,
  ``python_requires`` in ``setup.cfg``/``setup.py``, Poetry's ``python`` dependency, found upward from
  the file) is 3.12 or later, above the running Python, and the parser's complaint is about an f-string
  (or a string literal cut short on a line holding an f-string: how a pre-3.12 tokenizer reads a nested
  quote, a backslash or a comment inside a replacement field): PEP 701 made those valid, which no line
  pattern can see. Any other failure is a syntax error for the project's Python too (the grammars of 3.12-3.14
  differ from 3.11's only by the constructs named here) and stays an error. A project that declares no
  Python at all may target 3.12+: an f-string complaint there is possible, not proven, so not certain either.

Either way JS001 becomes one ``info`` naming the Python that could not parse it and the one the
project (or the construct) needs; any other syntax error stays ``error``.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache

# (pattern over the failing line, the Python that accepts it, what it is). Statement-level forms only:
# each is a syntax error on every older Python, so matching the line is proof of a newer grammar.
NEWER_SYNTAX: tuple[tuple[re.Pattern[str], tuple[int, int], str], ...] = (
    (re.compile(r"^\s*type\s+[A-Za-z_]\w*\s*(\[.*\])?\s*="), (3, 12), "a PEP 695 `type` alias"),
    (re.compile(r"^\s*(async\s+)?def\s+[A-Za-z_]\w*\s*\["), (3, 12), "PEP 695 type parameters"),
    (re.compile(r"^\s*class\s+[A-Za-z_]\w*\s*\["), (3, 12), "PEP 695 type parameters"),
    (re.compile(r"^\s*except\*?\s+[^():]+,[^():]*:"), (3, 14), "a PEP 758 unparenthesised `except`"),
    (re.compile(r"""(?<![\w.])[tT][rR]?["']|(?<![\w.])[rR][tT]["']"""), (3, 14), "a PEP 750 t-string"),
)
# Messages of this Python's parser for f-strings that PEP 701 (3.12) made valid (nested quotes, backslashes
# and comments inside replacement fields): proof only together with a project that targets 3.12 or later.
_FSTRING = "f-string"
# What a pre-3.12 tokenizer says when it cuts an f-string short at a nested quote, a backslash or a `#` inside
# a replacement field (PEP 701 made those valid): with an f-string on the failing line, the same kind of proof.
_CUT_SHORT = ("unterminated string literal", "unterminated triple-quoted string literal",
              "unexpected character after line continuation character")
_FSTRING_START = re.compile(r"""(?<![\w.])(?:[fF][rR]?|[rR][fF])["']""")


def _fstring_failure(line_text: str | None, msg: str) -> bool:
    """Is the parser's complaint one PEP 701 (3.12) may lift: about an f-string, or a string cut short on a line
    that holds an f-string?"""
    return msg.startswith(_FSTRING) or (msg.startswith(_CUT_SHORT) and line_text is not None
                                        and _FSTRING_START.search(line_text) is not None)


def newer_python(filename: str, line_text: str | None, msg: str) -> tuple[str, bool] | None:
    """Why a parse failure on ``line_text`` (parser message ``msg``) in ``filename`` may be valid code for
    a newer Python, as the tail of a message, and whether that is proven (the line's construct needs a
    newer grammar) rather than possible (only the project's declared Python is newer); None when neither."""
    running = sys.version_info[:2]
    need = None
    what = ""
    for pattern, version, name in NEWER_SYNTAX:
        if version > running and line_text is not None and pattern.search(line_text):
            need, what = version, name
            break
    target = project_python(os.path.dirname(os.path.abspath(filename))) if filename[:1] != "<" else None
    newer_target = target is not None and target > running
    if need is None and not newer_target:
        if target is None and _fstring_failure(line_text, msg) and running < (3, 12):
            # No declared Python: the project may target 3.12+, whose f-strings (PEP 701: nested quotes,
            # backslashes, comments) this parser rejects. Not proof either way: possible, so not certain.
            return "the project declares no Python version, and from Python 3.12 f-strings (PEP 701) may accept it", False
        return None
    parts = []
    if need is not None:
        parts.append(f"the line uses {what}, valid from Python {need[0]}.{need[1]}")
    if newer_target:
        t = f"{target[0]}.{target[1]}"  # type: ignore[index]
        if need is not None:
            parts.append(f"the project targets >= {t}")
        elif _fstring_failure(line_text, msg) and target >= (3, 12) > running:  # type: ignore[operator]
            parts.append(f"the project targets >= {t}, whose f-strings (PEP 701) may accept it")
        else:
            # The grammars of 3.12-3.14 differ from 3.11's only by the constructs above: any other failure is
            # a syntax error for the project's Python too (a stripped docstring's bare text, a lost colon).
            return None
    return "; ".join(parts), need is not None


_PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
_LOWER = re.compile(r"(?:>=|~=|\^|==|>)\s*[\"']?\s*3\.(\d+)")


@lru_cache(maxsize=512)
def project_python(directory: str) -> tuple[int, int] | None:
    """The lower bound of Python declared by the nearest project file at or above ``directory``
    (the first such file that declares one, up to the filesystem root), or None."""
    d = directory
    while True:
        for name in _PROJECT_FILES:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                found = _declared(path)
                if found is not None:
                    return found
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _declared(path: str) -> tuple[int, int] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(200_000)
    except OSError:
        return None
    if path.endswith(".toml"):
        try:
            import tomllib

            data = tomllib.loads(text)
        except (ImportError, ValueError):
            return None
        project = data.get("project") or {}
        spec = project.get("requires-python") if isinstance(project, dict) else None
        if spec is None:
            poetry = ((data.get("tool") or {}).get("poetry") or {}).get("dependencies") or {}
            spec = poetry.get("python") if isinstance(poetry, dict) else None
        return _lower_bound(spec) if isinstance(spec, str) else None
    m = re.search(r"python_requires\s*=\s*[\"']?([^\"'\n]+)", text)
    return _lower_bound(m.group(1)) if m else None


def _lower_bound(spec: str) -> tuple[int, int] | None:
    """The smallest ``3.N`` a specifier's lower bounds (``>=3.12``, ``~=3.12``, ``^3.12``) allow."""
    minors = [int(m) for m in _LOWER.findall(spec)]
    return (3, max(minors)) if minors else None
