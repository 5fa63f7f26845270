"""The base of every lint rule, and the fixed sections of a rule's documentation.

A ``Rule`` is one unit (code, name, message, severity, check, fix safety, docs). This module
imports nothing from the engine: rules import ``Rule`` from here and ``Context`` from
``lint/context.py``; ``registry.py`` lists them.
"""

from __future__ import annotations

import ast
import inspect
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any, ClassVar

GROUPS = {
    "JS0": "The file itself",
    "JS1": "Concretization: a traced value used where Python needs a concrete one",
    "JS2": "Compile time, graph bloat and host round trips",
    "JS3": "Static shapes",
    "JS4": "Side effects that run only while tracing",
    "JS5": "Stale captures",
    "JS6": "Array API misuse",
}

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")


class Rule:
    """Base class of every lint rule.

    Subclasses set the class attributes and implement ``check(node, ctx)``, which is
    called for every node whose type is in ``nodes`` (only inside traced functions
    when ``traced_only``) and reports with ``ctx.report(self, node, ...)``.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    message: ClassVar[str] = ""  # default message; str.format()-ed with the report's fields
    severity: ClassVar[str] = "warning"
    # "certain": the finding holds whenever the rule fires (the code fails or is silently wrong under
    # jit, given what the linter proved); "likely": it depends on something not visible statically.
    confidence: ClassVar[str] = "likely"
    fix: ClassVar[str | None] = None  # "safe", "unsafe" or None when the rule never offers an edit
    nodes: ClassVar[tuple[type[ast.AST], ...]] = ()
    traced_only: ClassVar[bool] = True
    # What a finding in traced code rests on, for the tracing model to judge (lint/facts.py):
    # "abstract" (the flagged value is an abstract tracer: concretization, shapes), "staged" (the
    # body is traced into a cached jaxpr: trace-time effects, unrolled graphs, baked-in captures),
    # or "" (nothing about how the code is traced).
    requires: ClassVar[str] = ""
    # For ``ast.Call`` nodes: which calls can trigger the rule, so the walk skips every other call
    # without calling ``check`` (most nodes of real code are calls). ``None``: every call. Otherwise
    # patterns over the callee: ``"jax.jit"`` its resolved qualified name (a builtin by its name),
    # ``"numpy.*"`` a prefix of it, ``".append"`` a method call ``anything.append(...)``. Must cover
    # every call ``check`` can report on; other node types in ``nodes`` are always checked.
    calls: ClassVar[tuple[str, ...] | frozenset[str] | None] = None

    def names(self, info: Any) -> frozenset[str] | None:
        """For ``ast.Name`` nodes: the only names that can trigger the rule in this module (``info``:
        its ``lint.scope.ModuleInfo``), or ``None`` for every name. Same contract as ``calls``."""
        return None

    def check(self, node: ast.AST, ctx: Any) -> None:  # pragma: no cover - overridden; ctx: lint.context.Context
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        """The first line of the docstring."""
        return (inspect.getdoc(cls) or "").strip().splitlines()[0]

    @classmethod
    def sections(cls) -> dict[str, str]:
        """The docstring's fixed sections, by title (``What it does`` ... ``Fix safety``)."""
        return parse_sections(inspect.getdoc(cls) or "")


def parse_sections(doc: str) -> dict[str, str]:
    """Split a rule docstring into its ``## Title`` sections (text under each, stripped)."""
    out: dict[str, str] = {}
    current = None
    buf: list[str] = []
    for line in doc.splitlines():
        m = re.match(r"^## (.+?)\s*$", line)
        if m:
            if current:
                out[current] = "\n".join(buf).strip()
            current, buf = m.group(1), []
        elif current:
            buf.append(line)
    if current:
        out[current] = "\n".join(buf).strip()
    return out
