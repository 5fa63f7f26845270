"""The versioned JSON schema of jitscope results.

``records.schema.json`` holds the shared records (Location, ArgSignature, Timing,
CompileEvent, Fix, Finding, Environment); ``<kind>.schema.json`` holds each command's
result and refers to the records by ``$ref``. ``CHANGELOG.md`` logs format changes.
"""

from __future__ import annotations

from typing import Any

BASE_URI = "https://jitscope.invalid/schema/"


def load_schema(name: str) -> dict[str, Any]:
    """The schema document ``<name>.schema.json`` (``records`` or a result kind)."""
    import json
    from importlib import resources  # here: reading a result validates it without the schema files

    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def schema_names() -> list[str]:
    from importlib import resources

    return sorted(p.name[: -len(".schema.json")] for p in resources.files(__name__).iterdir()
                  if p.name.endswith(".schema.json"))


def validate(data: dict[str, Any]) -> None:
    """Validate a result dict against the schema for its ``kind``; raises jsonschema.ValidationError.

    Needs the ``jsonschema`` package (a test dependency, not a runtime one).
    """
    import jsonschema
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (BASE_URI + f"{n}.schema.json", Resource.from_contents(load_schema(n))) for n in schema_names()
    )
    schema = load_schema(data["kind"])
    jsonschema.Draft202012Validator(schema, registry=registry).validate(data)
