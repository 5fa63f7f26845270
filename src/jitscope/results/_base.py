"""The Result base class: a Record plus a kind, a format version, save and load."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from .._serde import Record
from ..errors import UsageError

FORMAT_VERSION = 1

_REGISTRY: dict[str, type[Result]] = {}
R = TypeVar("R", bound="Result")


class Result(Record):
    """Base for command results. Subclasses are dataclasses that set ``kind``.

    Subclasses register themselves, so ``load_result`` can rebuild any saved file.
    The saved JSON has ``format_version`` and ``kind`` at top level, then the fields.
    """

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.kind:
            _REGISTRY[cls.kind] = cls

    def to_dict(self) -> dict[str, Any]:
        return {"format_version": FORMAT_VERSION, "kind": self.kind, **super().to_dict()}

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        data = {k: v for k, v in data.items() if k not in ("format_version", "kind")}
        return super().from_dict(data)  # type: ignore[misc]

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole result as JSON (atomically: a crash never leaves half a file).

        Raises:
            UsageError: the file cannot be written (``cannot write PATH: reason``).
        """
        text = self.to_json() + "\n"
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        try:
            if p.parent and not p.parent.exists():
                p.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, p)
        except OSError as e:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            raise UsageError(f"cannot write {path}: {e.strerror or e}") from None

    @classmethod
    def load(cls: type[R], path: str | os.PathLike[str]) -> R:
        result = load_result(path)
        if not isinstance(result, cls):
            raise UsageError(f"{path}: holds a '{result.kind}' result, not '{cls.kind}'")
        return result


def result_class(kind: str) -> type[Result]:
    """The Result subclass registered for ``kind``."""
    _import_all()
    try:
        return _REGISTRY[kind]
    except KeyError:
        raise UsageError(f"unknown result kind '{kind}' (known: {', '.join(sorted(_REGISTRY))})") from None


def load_result(path: str | os.PathLike[str]) -> Result:
    """Read a saved result of any kind, checked against its schema before anything trusts it.

    Raises:
        UsageError: one line naming the file and, for a file that breaks the schema, the first
            bad field (``FILE: not a valid inspect result: jaxpr.constants: expected integer, got string``).
    """
    from ..schema.check import Invalid, check

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except RecursionError:
        raise UsageError(f"{path}: not a jitscope JSON result (nested too deeply to read)") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:  # JSONDecodeError is a ValueError
        reason = (str(e).strip().splitlines() or [""])[0][:200]
        raise UsageError(f"{path}: not a jitscope JSON result ({reason})") from None
    if not isinstance(data, dict) or "kind" not in data:
        raise UsageError(f"{path}: not a jitscope JSON result (no 'kind' field)")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise UsageError(f"{path}: format_version {_short(version)} is not supported "
                         f"(this jitscope reads {FORMAT_VERSION})")
    kind = data["kind"]
    if not isinstance(kind, str):
        raise UsageError(f"{path}: not a jitscope JSON result ('kind' is not a string)")
    _import_all()
    if kind not in _REGISTRY:
        raise UsageError(f"{path}: unknown result kind '{_short(kind)}' (known: {', '.join(sorted(_REGISTRY))})")
    cls = _REGISTRY[kind]
    try:
        check(data, kind)
    except Invalid as e:
        raise UsageError(f"{path}: not a valid {kind} result: {_short(str(e), 300)}") from None
    try:
        return cls.from_dict(data)
    except (TypeError, KeyError, ValueError, AttributeError, OverflowError, RecursionError) as e:
        reason = (str(e).strip().splitlines() or [""])[0][:200]
        raise UsageError(f"{path}: not a valid {kind} result ({type(e).__name__}: {reason})") from None


def _short(value: object, limit: int = 40) -> str:
    # One line, bounded: a hostile file must not make the error message itself many lines long.
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _import_all() -> None:
    # Result modules register on import; import every one that exists.
    # By path, not by importing the package: the package imports this module.
    import importlib
    import pkgutil

    package = __name__.rsplit(".", 1)[0]
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")
