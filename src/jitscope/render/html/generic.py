"""Fallback layout for any result kind: scalars as a table, lists of records as tables,
nested objects as pretty JSON. Kind-specific modules replace this with a real layout."""

from __future__ import annotations

import json
from typing import Any

from ._page import Section, pre, table


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (dict, list)):
        return json.dumps(v)[:200]
    return "" if v is None else str(v)


def sections(data: dict[str, Any]) -> list[Section]:
    out: list[Section] = []
    scalars = [(k, v) for k, v in data.items() if not isinstance(v, (dict, list)) and k not in ("format_version",)]
    if scalars:
        out.append(Section("Summary", table(["field", "value"], [(k, _cell(v)) for k, v in scalars])))
    for key, value in data.items():
        if key == "env":
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            cols = list(dict.fromkeys(k for row in value for k in row))
            out.append(Section(key.replace("_", " ").capitalize(),
                               table(cols, [[_cell(row.get(c)) for c in cols] for row in value])))
        elif isinstance(value, (dict, list)) and value:
            out.append(Section(key.replace("_", " ").capitalize(), pre(json.dumps(value, indent=2))))
    return out
