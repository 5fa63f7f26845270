"""The result of ``jitscope demo``: the articles' case studies, each measured live with a computed lesson."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..model import Environment
from ._base import Result
from .compare import CompareResult


@dataclass
class Column(Record):
    """A column of a case study's own table: ``key`` into each row, a title, and how to show values.

    ``unit`` is ``"s"`` (seconds), ``"x"`` (a ratio), ``"int"``, ``"float"`` or ``""`` (text).
    """

    key: str
    title: str
    unit: str = ""


@dataclass
class CaseStudy(Record):
    """One case study: what it reproduces, the measurements, and the lesson computed from them.

    ``compare`` holds the engine's measurement when the case compares variants; ``columns`` and
    ``rows`` hold any other table (e.g. compile time over N). ``facts`` are the numbers the
    ``lesson`` sentence was built from, by name, so a reader (or a test) can check the sentence.
    ``seed`` names the article it comes from by its subject (``jitscope.gallery.ARTICLES``); ``published``
    its figures, quoted. ``error`` is set when the
    case failed; the other cases still run.
    """

    name: str
    title: str
    seed: str = ""
    published: str = ""
    lesson: str = ""
    compare: CompareResult | None = None
    columns: list[Column] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None


@dataclass
class DemoResult(Result):
    """Every case study run by ``jitscope demo`` (in order), whether ``quick`` sizes were used,
    the wall time of the whole demo, and the environment it ran on."""

    kind = "demo"

    cases: list[CaseStudy] = field(default_factory=list)
    quick: bool = False
    seconds: float = 0.0
    interrupted: bool = False  # Ctrl-C stopped the demo; the cases before it are kept
    env: Environment = field(default_factory=Environment)

    def case(self, name: str) -> CaseStudy:
        """The case study called ``name`` (KeyError if it did not run)."""
        for c in self.cases:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def ok(self) -> bool:
        return all(c.error is None for c in self.cases)
