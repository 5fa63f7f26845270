"""Validate a result document against jitscope's own schemas, with no dependency, before trusting it.

``load_result`` calls ``first_problem`` on every file: a document that is not what the schema
describes is refused with one line naming the file and the first bad field, instead of reaching a
renderer that would crash on it (or, in HTML, print it unescaped).

This is a validator for exactly the JSON Schema keywords jitscope's schemas use (listed in
``KEYWORDS``). A schema that uses any other keyword makes it raise ``NotImplementedError``, so a
keyword can never be silently ignored; ``tests/test_schema_check.py`` compares its verdicts with
the ``jsonschema`` package's on generated and mutated documents.
"""

from __future__ import annotations

import math
import re
from typing import Any

from . import load_schema, schema_names

KEYWORDS = frozenset({
    "type", "$ref", "minimum", "additionalProperties", "items", "properties", "required", "oneOf",
    "anyOf", "enum", "const", "$schema", "$id", "title", "$defs", "propertyNames", "description",
    "allOf", "pattern", "minItems",
})
MAX_DEPTH = 64  # deeper than any result jitscope writes; a deeper file is refused, not recursed into

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

_DOCS: dict[str, dict[str, Any]] = {}


def _doc(name: str) -> dict[str, Any]:
    if name not in _DOCS:
        _DOCS[name] = load_schema(name)
    return _DOCS[name]


def first_problem(data: Any) -> str | None:
    """The first place ``data`` breaks its kind's schema, as ``field.path: what is wrong``; None if valid."""
    if not isinstance(data, dict):
        return "the document is not a JSON object"
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in schema_names() or kind == "records":
        return f"kind: unknown result kind {kind!r}"
    too_deep = _too_deep(data)
    if too_deep is not None:
        return f"{_where(too_deep)}: nested more than {MAX_DEPTH} levels deep"
    bad_number = _non_finite(data)
    if bad_number is not None:  # Python's json reads NaN and Infinity; JSON has neither
        return f"{_where(bad_number)}: not a finite number"
    return _check(data, _doc(kind), kind, "", 0)


def record_problem(data: Any, record: str) -> str | None:
    """Like ``first_problem`` for one shared record (``"CompileEvent"``, ``"Location"``, ...) of
    ``records.schema.json``: a line of a watch events file is one ``CompileEvent``."""
    too_deep = _too_deep(data)
    if too_deep is not None:
        return f"{_where(too_deep)}: nested more than {MAX_DEPTH} levels deep"
    bad_number = _non_finite(data)
    if bad_number is not None:
        return f"{_where(bad_number)}: not a finite number"
    return _check(data, {"$ref": f"records.schema.json#/$defs/{record}"}, "records", "", 0)


def _non_finite(data: Any) -> str | None:
    """The path of the first NaN or infinite number anywhere in the document (free-form fields too)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return path
        if isinstance(node, dict):
            stack.extend((v, _join(path, str(k))) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node))
    return None


def _too_deep(data: Any) -> str | None:
    """The path of the first value nested deeper than ``MAX_DEPTH`` (free-form fields included), iteratively."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path
        if isinstance(node, dict):
            stack.extend((v, _join(path, str(k)), depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node))
    return None


def _where(path: str) -> str:
    return path or "(top level)"


def _resolve(ref: str, base: str) -> tuple[dict[str, Any], str]:
    doc_part, _, pointer = ref.partition("#")
    name = doc_part.rsplit("/", 1)[-1].removesuffix(".schema.json") if doc_part else base
    node: Any = _doc(name)
    for part in [p for p in pointer.split("/") if p]:
        node = node[part]
    return node, name


def _check(value: Any, schema: dict[str, Any], base: str, path: str, depth: int) -> str | None:
    if depth > MAX_DEPTH:
        return f"{_where(path)}: nested more than {MAX_DEPTH} levels deep"
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise NotImplementedError(f"schema keyword(s) {sorted(unknown)} are not supported by schema/check.py")
    if "$ref" in schema:
        target, new_base = _resolve(schema["$ref"], base)
        problem = _check(value, target, new_base, path, depth + 1)
        if problem:
            return problem
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[k](value) for k in kinds):
            return f"{_where(path)}: expected {' or '.join(kinds)}, got {_describe(value)}"
    if "const" in schema and not _equal(value, schema["const"]):
        return f"{_where(path)}: must be {schema['const']!r}"
    if "enum" in schema and not any(_equal(value, option) for option in schema["enum"]):
        return f"{_where(path)}: {_short(value)} is not one of {', '.join(map(repr, schema['enum']))}"
    for key in ("oneOf", "anyOf"):
        if key in schema:
            results = [_check(value, sub, base, path, depth + 1) for sub in schema[key]]
            ok = sum(r is None for r in results)
            if ok == 0:
                return min((r for r in results if r), key=len)  # the closest branch's complaint
            if key == "oneOf" and ok > 1:
                return f"{_where(path)}: matches more than one allowed form"
    for sub in schema.get("allOf", []):
        problem = _check(value, sub, base, path, depth + 1)
        if problem:
            return problem
    if "minimum" in schema and _TYPES["number"](value) and value < schema["minimum"]:
        return f"{_where(path)}: {value} is below the minimum {schema['minimum']}"
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        return f"{_where(path)}: {_short(value)} does not match {schema['pattern']}"
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{_where(path)}: needs at least {schema['minItems']} items, has {len(value)}"
        if "items" in schema:
            for i, item in enumerate(value):
                problem = _check(item, schema["items"], base, f"{path}[{i}]", depth + 1)
                if problem:
                    return problem
    if isinstance(value, dict):
        return _check_object(value, schema, base, path, depth)
    return None


def _check_object(value: dict[str, Any], schema: dict[str, Any], base: str, path: str, depth: int) -> str | None:
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return f"{_join(path, name)}: missing"
    names = schema.get("propertyNames")
    for key, item in value.items():
        here = _join(path, key)
        if names is not None:
            problem = _check(key, names, base, here, depth + 1)
            if problem:
                return problem
        if key in props:
            problem = _check(item, props[key], base, here, depth + 1)
        else:
            extra = schema.get("additionalProperties", True)
            if extra is False:
                return f"{here}: not a field of this record"
            problem = _check(item, extra, base, here, depth + 1) if isinstance(extra, dict) else None
        if problem:
            return problem
    return None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {_short(value)}"
    if isinstance(value, str):
        return f"the string {_short(value)}"
    return "an array" if isinstance(value, list) else "an object"


def _equal(value: Any, expected: Any) -> bool:
    """JSON equality, where ``true`` is not ``1`` (Python's ``True == 1`` is): as jsonschema compares."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return isinstance(value, bool) and isinstance(expected, bool) and value == expected
    return bool(value == expected)
