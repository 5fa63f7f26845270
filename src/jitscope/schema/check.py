"""A small validator for the subset of JSON Schema (2020-12) that jitscope's own schemas use.

``load_result`` checks every file with it before building a result, so the renderers only ever see
values of the types they were written for. It is not a general JSON Schema implementation (that
is ``jsonschema``, a test dependency that checks these schemas agree with it): it knows ``type``,
``enum``, ``const``, ``properties``, ``required``, ``additionalProperties``, ``propertyNames``,
``items``, ``minItems``, ``minimum``, ``pattern``, ``oneOf``, ``allOf`` and ``$ref`` into these
files, and fails loudly (``ValueError``) on any other keyword, so a schema edit cannot silently
outgrow it. Rules of its own: nesting depth, finite numbers, integers within 64 bits, and
"integer" meaning a number written without a fraction. Kept at runtime, rather than depending on ``jsonschema``, because the subset is small
and ``jsonschema`` brings three more packages into every user's environment for it.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from . import load_schema

MAX_DEPTH = 64  # the schemas nest about 8 deep; free-form ``details`` get the rest
_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description"}
_KNOWN = _ANNOTATIONS | {"type", "enum", "const", "properties", "required", "additionalProperties",
                         "propertyNames", "items", "minItems", "minimum", "pattern", "oneOf", "allOf", "$ref"}
_TYPES = {"object": "object", "array": "array", "string": "string", "integer": "integer", "number": "number",
          "boolean": "boolean", "null": "null"}


class Invalid(Exception):
    """The first place a document breaks its schema: ``path`` (``jaxpr.constants``) and ``reason``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path or '(top level)'}: {reason}")
        self.path = path
        self.reason = reason


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value (``bool`` is boolean, not integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is(value: Any, tp: str) -> bool:
    actual = json_type(value)
    return actual == tp or (tp == "number" and actual == "integer")


def _same(a: Any, b: Any) -> bool:
    # JSON equality: true is not 1, 1 is 1.0
    return json_type(a) == json_type(b) and a == b or (
        {json_type(a), json_type(b)} <= {"integer", "number"} and a == b)


@functools.cache
def _doc(name: str) -> dict[str, Any]:
    return load_schema(name)


def _resolve(ref: str, doc: str) -> tuple[dict[str, Any], str]:
    file, _, pointer = ref.partition("#")
    if file:
        if not file.endswith(".schema.json"):
            raise ValueError(f"unsupported $ref {ref!r}")
        doc = file[: -len(".schema.json")]
    node: Any = _doc(doc)
    for part in [p for p in pointer.split("/") if p]:
        node = node[part]
    return node, doc


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(value: Any, schema: dict[str, Any], doc: str, path: str) -> None:
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"schema keyword(s) {sorted(unknown)} not supported by jitscope.schema.check")
    if "$ref" in schema:
        target, target_doc = _resolve(schema["$ref"], doc)
        _check(value, target, target_doc, path)
    for sub in schema.get("allOf", ()):
        _check(value, sub, doc, path)
    if "oneOf" in schema:
        errors: list[Invalid] = []
        for sub in schema["oneOf"]:
            try:
                _check(value, sub, doc, path)
            except Invalid as e:
                errors.append(e)
        matched = len(schema["oneOf"]) - len(errors)
        if matched == 0:
            # The branch that got furthest into the value says best what is wrong with it.
            raise max(errors, key=lambda e: len(e.path))
        if matched > 1:
            raise Invalid(path, "matches more than one alternative of its schema")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in types):
            raise Invalid(path, f"expected {' or '.join(_TYPES[t] for t in types)}, got {json_type(value)}")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        # Past 64 bits JSON readers disagree (and Python's float() overflows): no jitscope count gets there.
        raise Invalid(path, f"integer out of range: {_short(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        # Python's json reads NaN, Infinity and 1e999, which JSON does not have; jitscope writes null.
        raise Invalid(path, f"not a finite number: {value}")
    if "const" in schema and not _same(value, schema["const"]):
        raise Invalid(path, f"must be {_short(schema['const'])}, got {_short(value)}")
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        raise Invalid(path, f"must be one of {', '.join(map(str, schema['enum']))}; got {_short(value)}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and "minimum" in schema \
            and value < schema["minimum"]:
        raise Invalid(path, f"must be at least {schema['minimum']}, got {value}")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        raise Invalid(path, f"does not match {schema['pattern']}: {_short(value)}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise Invalid(path, f"needs at least {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                _check(item, schema["items"], doc, f"{path}[{i}]")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                raise Invalid(f"{path}.{key}" if path else key, "missing")
        extra = schema.get("additionalProperties", True)
        names = schema.get("propertyNames")
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if names is not None:
                _check(key, names, doc, where)
            if key in props:
                _check(item, props[key], doc, where)
            elif extra is False:
                raise Invalid(where, "unknown field")
            elif isinstance(extra, dict):
                _check(item, extra, doc, where)


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply ``value`` nests (a scalar is 0), counting no further than ``limit + 1`` (iteratively)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, d = stack.pop()
        if isinstance(node, (dict, list)):
            d += 1
            deepest = max(deepest, d)
            if d > limit:
                return d
            stack.extend((v, d) for v in (node.values() if isinstance(node, dict) else node))
    return deepest


def check(data: Any, kind: str) -> None:
    """Raise ``Invalid`` at the first place ``data`` breaks ``<kind>.schema.json`` (or nests too deeply)."""
    if depth(data) > MAX_DEPTH:
        raise Invalid("", f"nested more than {MAX_DEPTH} levels deep")
    _check(data, _doc(kind), kind, "")
