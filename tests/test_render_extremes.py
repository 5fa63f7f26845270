"""Every renderer takes any number a result's schema allows (issue #23: a schema-valid ``1e308`` in an inspect
result crashed ``jitscope report`` with an OverflowError). Each gold result has every float replaced by an
extreme value; a file the schema refuses is a one-line UsageError, one it accepts renders in every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jitscope.errors import UsageError
from jitscope.render import render
from jitscope.results import load_result

GOLD = sorted((Path(__file__).resolve().parent / "gold").glob("*.json"))


def _every_float(data, value):
    if isinstance(data, dict):
        return {k: _every_float(v, value) for k, v in data.items()}
    if isinstance(data, list):
        return [_every_float(v, value) for v in data]
    return value if isinstance(data, float) else data


@pytest.mark.parametrize("value", [1e308, 5e-324, 0.0])
@pytest.mark.parametrize("gold", GOLD, ids=lambda p: p.stem)
def test_extreme_numbers_render_in_every_format(tmp_path, gold, value):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_every_float(json.loads(gold.read_text()), value)))
    try:
        result = load_result(path)
    except UsageError:
        return  # refused by the schema in one line: what bad input must get
    for fmt in ("console", "html", "json"):
        assert render(result, fmt)
