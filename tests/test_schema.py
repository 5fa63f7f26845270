"""Every schema file is valid JSON Schema, and refs between them resolve."""

from __future__ import annotations

import jsonschema

from jitscope.schema import load_schema, schema_names


def test_every_schema_is_valid_draft_2020_12():
    names = schema_names()
    assert "records" in names
    for name in names:
        jsonschema.Draft202012Validator.check_schema(load_schema(name))
