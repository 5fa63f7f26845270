"""Self-contained HTML report: one file, inline CSS and SVG charts, no scripts or network.

``render(result) -> str`` works for every result kind. A kind with a module
``render/html/<kind>.py`` exposing ``sections(result) -> list[Section]`` gets its own
layout (tables, charts, lessons); any other kind falls back to a generic layout built
from its JSON. The result's JSON is embedded (``<script type="application/json"
id="jitscope-data">``) so the numbers behind every chart travel with the page.
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING

from ._page import Section, page
from .generic import sections as generic_sections

if TYPE_CHECKING:
    from ...results import Result

__all__ = ["Section", "render"]


def render(result: Result) -> str:
    """The whole report for ``result`` as one HTML document."""
    try:
        module = importlib.import_module(f"{__name__}.{result.kind}")
        sections = module.sections(result)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{result.kind}":
            raise
        sections = generic_sections(result.to_dict())
    data = json.dumps(result.to_dict(), allow_nan=False, separators=(",", ":"))
    return page(result, sections, data)
