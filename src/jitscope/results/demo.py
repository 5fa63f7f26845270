"""Stub: to be implemented."""

from __future__ import annotations

from dataclasses import dataclass

from ._base import Result


@dataclass
class DemoResult(Result):
    kind = "demo"
