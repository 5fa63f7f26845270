"""Documents built from the JSON schemas: every property present, every string set to a chosen text.

Used by the fault-injection tests to put a payload into every field of every result kind, and as
the seed documents the hypothesis mutator starts from.
"""

from __future__ import annotations

from typing import Any

from jitscope.schema import load_schema, schema_names

PAYLOAD = ('<img src=x onerror="document.title=\'pwned\'">'
           "</script><script>document.title='pwned'</script><!--")


PATTERN_SAMPLES = {"^JS[0-9]{3}$": "JS101", "^JW[0-9]{3}$": "JW101"}


def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for name in schema_names():
        doc = load_schema(name)
        defs[f"{name}.schema.json"] = doc
        for key, value in doc.get("$defs", {}).items():
            defs[f"{name}.schema.json#/$defs/{key}"] = value
            defs.setdefault(f"#/$defs/{key}@{name}", value)
    return defs


def _resolve(ref: str, base: str, defs: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if ref.startswith("#"):
        return defs[f"{base}{ref}"], base
    doc = ref.rsplit("/", 1)[-1] if "/" in ref.split("#")[0] else ref.split("#")[0]
    key = f"{doc}#{ref.split('#', 1)[1]}" if "#" in ref else doc
    return defs[key], doc


def instance(kind: str, text: str = PAYLOAD) -> dict[str, Any]:
    """A valid ``kind`` result with every optional field filled and every free string set to ``text``."""
    defs = _defs()
    base = f"{kind}.schema.json"
    return _build(defs[base], base, defs, text, depth=0)


def _build(node: dict[str, Any], base: str, defs: dict[str, Any], text: str, depth: int) -> Any:
    if "$ref" in node:
        target, new_base = _resolve(node["$ref"], base, defs)
        return _build(target, new_base, defs, text, depth + 1)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return next((v for v in node["enum"] if v is not None), node["enum"][0])
    for key in ("anyOf", "oneOf"):
        if key in node:
            branches = [b for b in node[key] if b.get("type") != "null"] or node[key]
            return _build(branches[0], base, defs, text, depth)
    if "allOf" in node:
        out: dict[str, Any] = {}
        for part in node["allOf"]:
            value = _build(part, base, defs, text, depth)
            if isinstance(value, dict):
                out.update(value)
        rest = {k: v for k, v in node.items() if k != "allOf"}
        if rest.get("properties"):
            out.update(_build(rest, base, defs, text, depth))
        return out
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in node:
        if depth > 20:  # deep enough for demo.cases[].compare.pessimisation[..].lines[].location
            return {}
        props = node.get("properties", {})
        out = {name: _build(sub, base, defs, text, depth + 1) for name, sub in props.items()}
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not props:
            names = node.get("propertyNames", {})
            key = names["enum"][0] if "enum" in names else text[:40]
            out[key] = _build(extra, base, defs, text, depth + 1)
        return out
    if kind == "array":
        if depth > 20:  # deep enough for demo.cases[].compare.pessimisation[..].lines[].location
            return []
        items = node.get("items", {})
        if node.get("prefixItems"):
            return [_build(i, base, defs, text, depth + 1) for i in node["prefixItems"]]
        n = max(1, node.get("minItems", 1))
        built = [_build(items, base, defs, text, depth + 1) for _ in range(n)]
        if all(isinstance(b, int) for b in built):
            built = [b + i for i, b in enumerate(built)]  # distinct sizes, indexes
        return built
    if kind == "string":
        if "pattern" in node:
            return PATTERN_SAMPLES[node["pattern"]]
        return text
    if kind == "integer":
        return max(1, node.get("minimum", 1))
    if kind == "number":
        return max(1.5, node.get("minimum", 1.5))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return text  # {}: anything goes; a string is the hardest case for a renderer
