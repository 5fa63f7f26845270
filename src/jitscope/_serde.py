"""Dataclass <-> plain-JSON conversion shared by every record and result.

A ``Record`` is a dataclass whose fields are JSON scalars, other Records, or
lists / tuples / dicts / optionals of those. ``to_dict`` emits only JSON types;
``from_dict`` rebuilds nested Records from the field type hints, so every record
survives a JSON round trip without per-class code.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T", bound="Record")

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """Each annotation of ``cls`` and its bases evaluated, as ``typing.get_type_hints`` does (the module's names,
    then the class's), and then typing's own names: a record's module that imports ``Any`` or ``ClassVar`` only
    for type checkers (under ``if TYPE_CHECKING:``, so that linting does not import typing) still loads."""
    if cls not in _HINTS:
        import typing  # here: saving a result never needs it, loading one does
        from collections import ChainMap

        hints: dict[str, Any] = {}
        for base in reversed(cls.__mro__):
            names = ChainMap(vars(sys.modules[base.__module__]), dict(vars(base)), vars(typing))
            for name, text in base.__dict__.get("__annotations__", {}).items():
                hints[name] = eval(text, {}, names) if isinstance(text, str) else text  # noqa: S307 - own annotations
        _HINTS[cls] = hints
    return _HINTS[cls]


def to_jsonable(value: Any) -> Any:
    """Convert a value made of Records, containers and scalars to JSON types."""
    if isinstance(value, Record):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float):
        # JSON has no NaN/inf; None is the honest "no value".
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if hasattr(value, "item") and callable(value.item):  # numpy / jax scalars
        return to_jsonable(value.item())
    return str(value)


def _from_jsonable(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    import typing

    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        for cand in non_none:
            if isinstance(cand, type) and issubclass(cand, Record) and isinstance(value, dict):
                return cand.from_dict(value)
        if len(non_none) == 1:
            return _from_jsonable(non_none[0], value)
        return value
    if isinstance(tp, type) and issubclass(tp, Record):
        return tp.from_dict(value)
    if origin is list:
        (item,) = args or (typing.Any,)
        return [_from_jsonable(item, v) for v in value]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_jsonable(args[0], v) for v in value)
        if args:
            return tuple(_from_jsonable(a, v) for a, v in zip(args, value))
        return tuple(value)
    if origin is dict:
        vt = args[1] if len(args) == 2 else typing.Any
        return {k: _from_jsonable(vt, v) for k, v in value.items()}
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


class Record:
    """Mixin for dataclasses: ``to_dict`` / ``from_dict`` with nested records."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any]) -> T:
        hints = _hints(cls)
        kwargs = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in data and f.init:
                kwargs[f.name] = _from_jsonable(hints[f.name], data[f.name])
        return cls(**kwargs)
