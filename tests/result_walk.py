"""Walk a result's dataclasses and replace every string or number in it (payload and fuzz tests).

``fill(result, value_for)`` returns a copy of ``result`` in which every ``str`` (field values, list
items, dict keys and values) and, with ``numbers=True``, every ``int``/``float`` (not ``bool``) is
replaced by ``value_for(path, old)``, ``path`` naming the place (``"jaxpr.constants"``). Fields that are
``None`` but typed as a record are first filled with a generic instance built from the type hints,
so a record the sample result happens not to hold (a crash, a numerics diff) is covered too.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

from jitscope._serde import Record, _hints

ValueFor = Callable[[str, Any], Any]  # (path, the value there now) -> new value


def _record_types(tp: Any) -> list[type]:
    if isinstance(tp, type) and issubclass(tp, Record):
        return [tp]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [t for a in typing.get_args(tp) for t in _record_types(a)]
    return []


def _is_str_hint(tp: Any) -> bool:
    if tp is str:
        return True
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return str in typing.get_args(tp)
    return False


def _is_number_hint(tp: Any) -> bool:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(a in (int, float) for a in typing.get_args(tp))
    return tp in (int, float)


def generic(cls: type) -> Any:
    """An instance of record ``cls`` from its defaults, nested records built the same way."""
    required = {}
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            h = _hints(cls)[f.name]
            recs = _record_types(h)
            origin = typing.get_origin(h) or h
            required[f.name] = (generic(recs[0]) if recs else {str: "", int: 0, float: 0.0, bool: False, list: [],
                                                                 dict: {}, tuple: ()}.get(origin))
    obj = cls(**required)
    for f in dataclasses.fields(cls):
        recs = _record_types(_hints(cls)[f.name])
        if getattr(obj, f.name) is None and recs:
            setattr(obj, f.name, generic(recs[0]))
    return obj


def _walk(value: Any, hint: Any, path: str, value_for: ValueFor, numbers: bool, keep: frozenset[str]) -> Any:
    name = path.rsplit(".", 1)[-1].split("[", 1)[0]
    if isinstance(value, Record) and dataclasses.is_dataclass(value):
        hints = _hints(type(value))
        changes = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            h = hints[f.name]
            if v is None:
                recs = _record_types(h)
                if recs:
                    v = generic(recs[0])
                elif _is_str_hint(h) and f.name not in keep:
                    v = ""
                elif numbers and _is_number_hint(h) and f.name not in keep:
                    v = 0
            changes[f.name] = _walk(v, h, f"{path}.{f.name}" if path else f.name, value_for, numbers, keep)
        return dataclasses.replace(value, **changes)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value if name in keep else value_for(path, value)
    if isinstance(value, (int, float)):
        return value_for(path, value) if numbers and name not in keep else value
    args = typing.get_args(hint)
    if isinstance(value, list):
        item = args[0] if args else Any
        return [_walk(v, item, f"{path}[{i}]", value_for, numbers, keep) for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return tuple(_walk(v, args[0] if args else Any, f"{path}[{i}]", value_for, numbers, keep)
                     for i, v in enumerate(value))
    if isinstance(value, dict):
        vt = args[1] if len(args) == 2 else Any
        out = {}
        for k, v in value.items():
            key = k if (not isinstance(k, str) or name in keep) else value_for(f"{path}{{key}}", k)
            if not isinstance(key, str):  # a number payload for a key: keep the key, it is a string
                key = k
            out[key] = _walk(v, vt, f"{path}[{k}]", value_for, numbers, keep)
        return out
    return value


def fill(result: Any, value_for: ValueFor, *, numbers: bool = False, keep: frozenset[str] = frozenset()) -> Any:
    """A copy of ``result`` with its strings (and numbers) replaced; fields named in ``keep`` are left alone."""
    return _walk(result, type(result), "", value_for, numbers, keep)


def number_paths(result: Any) -> list[str]:
    """The path of every number in ``result`` (after ``None`` records are filled generically)."""
    seen: list[str] = []

    def note(path: str, old: Any) -> Any:
        if not isinstance(old, str):
            seen.append(path)
        return old

    fill(result, note, numbers=True)
    return seen
