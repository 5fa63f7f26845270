"""The Result base class: a Record plus a kind, a format version, save and load."""

from __future__ import annotations

import os

from .._serde import Record
from ..errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any, TypeVar

    R = TypeVar("R", bound="Result")

FORMAT_VERSION = 1

_REGISTRY: dict[str, type[Result]] = {}


class Result(Record):
    """Base for command results. Subclasses are dataclasses that set ``kind``.

    Subclasses register themselves, so ``load_result`` can rebuild any saved file.
    The saved JSON has ``format_version`` and ``kind`` at top level, then the fields.
    """

    kind = ""  # the result's kind: a class attribute, not a field (unannotated, so get_type_hints needs no typing name)

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
        import json  # here, not at the top: a result printed as text never imports it

        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole result as JSON (atomically: a crash never leaves half a file).

        Raises:
            UsageError: the file cannot be written (``cannot write PATH: reason``).
        """
        from pathlib import Path  # here: a command writing no result file does not import it

        text = self.to_json() + "\n"
        p = Path(path)
        if p.is_symlink():  # write through the link, as a shell redirect does, never replace the link
            p = Path(os.path.realpath(p))
        if p.exists() and not p.is_file():  # /dev/null, a FIFO: write to it, never replace it by a file
            try:
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError as e:
                raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
            return
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
    """Read a saved result of any kind (a regular file or a pipe, ``_files.read_text``)."""
    from .._files import read_text  # here: writing a result never reads one

    return result_from_text(path, read_text(path))


def result_from_text(path: str | os.PathLike[str], text: str) -> Result:
    """The saved result of any kind whose JSON text is ``text`` (read from ``path``, named in errors)."""
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: not a jitscope JSON result ({' '.join(str(e).split())})") from None
    except RecursionError:
        raise UsageError(f"{path}: not a jitscope JSON result (nested too deeply)") from None
    if not isinstance(data, dict) or "kind" not in data:
        raise UsageError(f"{path}: not a jitscope JSON result (no 'kind' field)")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise UsageError(f"{path}: format_version {version} is not supported (this jitscope reads {FORMAT_VERSION})")
    kind = data["kind"]
    if not isinstance(kind, str):
        raise UsageError(f"{path}: not a jitscope JSON result ('kind' is not a string)")
    cls = result_class(kind)
    # Validate before trusting: a renderer must never meet a field of the wrong type or shape.
    from ..schema.check import first_problem  # here: writing a result never imports the schema

    problem = first_problem(data)
    if problem:
        raise UsageError(f"{path}: not a valid {kind} result: {problem}")
    try:
        return cls.from_dict(data)
    except (TypeError, KeyError, ValueError, AttributeError) as e:
        reason = (str(e).strip().splitlines() or [""])[0][:200]
        raise UsageError(f"{path}: not a valid {kind} result ({type(e).__name__}: {reason})") from None


def _import_all() -> None:
    # Result modules register on import; import every one that exists.
    # By path, not by importing the package: the package imports this module.
    import importlib
    import pkgutil

    package = __name__.rsplit(".", 1)[0]
    for info in pkgutil.iter_modules([os.path.dirname(__file__)]):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")
