"""``[tool.jitscope]`` in pyproject.toml: select, ignore, per-file-ignores, exclude.

The configuration is found like ruff finds its own: walk up from the first linted path
to the nearest ``pyproject.toml`` that has a ``[tool.jitscope]`` table. Selectors are
rule codes or prefixes (``JS1``, ``JS20``, ``ALL``); patterns in ``per-file-ignores``
and ``exclude`` are globs relative to the directory holding the pyproject.toml, matched
against the file path and its basename.

```toml
[tool.jitscope]
select = ["JS1", "JS2"]
ignore = ["JS204"]
exclude = ["build/*"]

[tool.jitscope.per-file-ignores]
"tests/*" = ["JS4"]
```
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from ..errors import UsageError
from .registry import check_selectors

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from pathlib import Path

KNOWN_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "exclude", "unknown-callers"}


@dataclass
class LintConfig:
    """Settings from ``[tool.jitscope]`` (empty when there is no such table)."""

    path: str | None = None  # the pyproject.toml they came from
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    unknown_callers: bool = False  # lint/unknown_callers.py: public functions no linted jit reaches, as if jitted

    @property
    def root(self) -> Path | None:
        from pathlib import Path  # here: only per-file-ignores and exclude ask, and a lint without them does not

        return Path(self.path).parent if self.path else None

    def _rel(self, file: str) -> str:
        from pathlib import Path

        root = self.root
        p = Path(file).resolve()
        if root is not None:
            try:
                return p.relative_to(root.resolve()).as_posix()
            except ValueError:
                pass
        return p.as_posix()

    def ignored_for(self, file: str) -> list[str]:
        """Selectors ignored for ``file`` by ``per-file-ignores``."""
        rel = self._rel(file)
        out: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(rel), pattern):
                out += codes
        return out

    def excluded(self, file: str) -> bool:
        rel = self._rel(file)
        return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(os.path.basename(rel), p) for p in self.exclude)


def find_config(start: str | os.PathLike[str]) -> str | None:
    """Nearest pyproject.toml with a ``[tool.jitscope]`` table, walking up from ``start`` (its real path)."""
    d = os.path.realpath(start)  # what Path(start).resolve() gives, without importing pathlib on every lint
    if os.path.isfile(d):
        d = os.path.dirname(d)
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        try:  # an unreadable directory on the way up is not an error: there is no config in it for us
            if os.path.isfile(candidate):
                with open(candidate, encoding="utf-8") as fh:
                    if "[tool.jitscope" in fh.read():
                        return candidate
        except (OSError, UnicodeDecodeError):
            pass
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _line_of(text: str, key: str) -> str:
    """``:N`` for the first line assigning or opening ``key`` (for one-line errors), else ``""``."""
    pattern = re.compile(rf"^\s*(\[+\s*{re.escape(key)}\b|{re.escape(key)}\s*[=.])")
    for n, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return f":{n}"
    return ""


def load_config(path: str | os.PathLike[str]) -> LintConfig:
    """Read ``[tool.jitscope]`` from ``path``; ``UsageError`` on invalid TOML, unknown keys or rule codes."""
    import tomllib

    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise UsageError(f"{path}: cannot read config: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise UsageError(f"{path}:{line}: not a TOML file (byte 0x{raw[e.start]:02x} is not UTF-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: cannot read config: {' '.join(str(e).split())}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise UsageError(f"{path}{_line_of(text, 'tool')}: 'tool' must be a table, not {type(tool).__name__}")
    table = tool.get("jitscope", {})
    if not isinstance(table, dict):
        where_line = _line_of(text, 'tool.jitscope') or _line_of(text, 'jitscope')
        raise UsageError(f"{path}{where_line}: [tool.jitscope] must be a table")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise UsageError(f"{path}: unknown key(s) in [tool.jitscope]: {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    where = f"{path} [tool.jitscope]"

    def codes(key: str) -> list[str]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{where}: '{key}' must be a list of rule codes")
        return check_selectors(value, f"{where} {key}")

    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise UsageError(f"{where}: 'per-file-ignores' must be a table of glob = [codes]")
    per_file = {}
    for pattern, value in pfi.items():
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{where}: per-file-ignores '{pattern}' must be a list of rule codes")
        per_file[pattern] = check_selectors(value, f"{where} per-file-ignores")
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(v, str) for v in exclude):
        raise UsageError(f"{where}: 'exclude' must be a list of glob patterns")
    unknown = table.get("unknown-callers", False)
    if not isinstance(unknown, bool):
        raise UsageError(f"{where}: 'unknown-callers' must be true or false")
    return LintConfig(str(path), codes("select"), codes("ignore"), codes("extend-select"), per_file, exclude, unknown)
