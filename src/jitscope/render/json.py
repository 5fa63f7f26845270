"""JSON renderer: the whole result in the versioned schema (``jitscope/schema``)."""

from __future__ import annotations

from ..results import Result


def render(result: Result) -> str:
    return result.to_json()
