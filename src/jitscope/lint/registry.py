"""The rule catalog: a ``Rule`` is one unit (code, name, message, severity, check, fix safety, docs).

Every rule lives in its own module under ``lint/rules/`` and subclasses ``Rule``. Its
docstring has fixed sections (``What it does``, ``Why is this bad?``, ``Example``,
``Use instead``, ``Fix safety``); ``jitscope rules`` and ``docs/rules.md`` are generated
from them, so a rule's message and its documentation never drift apart. Codes are stable
and never reused: a retired rule keeps its code out of circulation.

Code groups:

- ``JS0xx`` the file itself (syntax error, undecodable bytes)
- ``JS1xx`` concretization: Python needs a concrete value from a traced one (fails under jit)
- ``JS2xx`` compile time and graph bloat (unrolled loops, builtin reductions, re-jitting)
- ``JS3xx`` static shapes (boolean masks, data-dependent output sizes)
- ``JS4xx`` side effects that run only while tracing
- ``JS5xx`` stale captures: globals baked into the compiled graph
- ``JS6xx`` array API misuse (in-place updates, unhashable static arguments)
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from ..errors import UsageError

if TYPE_CHECKING:
    from .engine import Context

GROUPS = {
    "JS0": "The file itself",
    "JS1": "Concretization: a traced value used where Python needs a concrete one",
    "JS2": "Compile time and graph bloat",
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
    fix: ClassVar[str | None] = None  # "safe", "unsafe" or None when the rule never offers an edit
    nodes: ClassVar[tuple[type[ast.AST], ...]] = ()
    traced_only: ClassVar[bool] = True

    def check(self, node: ast.AST, ctx: Context) -> None:  # pragma: no cover - overridden
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


_RULES: dict[str, type[Rule]] | None = None


def all_rules() -> dict[str, type[Rule]]:
    """Every rule, by code, in code order."""
    global _RULES
    if _RULES is None:
        from .rules import RULE_CLASSES

        _RULES = {r.code: r for r in sorted(RULE_CLASSES, key=lambda r: r.code)}
    return _RULES


def get_rule(code: str) -> type[Rule]:
    """The rule with ``code`` (case-insensitive); ``UsageError`` if there is none."""
    rules = all_rules()
    rule = rules.get(code.strip().upper())
    if rule is None:
        raise UsageError(f"unknown rule code '{code}' (see `jitscope rules`)")
    return rule


def check_selectors(selectors: Iterable[str], what: str) -> list[str]:
    """Normalize rule selectors (codes or prefixes like ``JS1``, or ``ALL``); reject unknown ones."""
    out = []
    codes = all_rules()
    for raw in selectors:
        sel = raw.strip().upper()
        if not sel:
            continue
        if sel != "ALL" and not any(code.startswith(sel) for code in codes):
            raise UsageError(f"{what}: unknown rule code or prefix '{raw}' (see `jitscope rules`)")
        out.append(sel)
    return out


def selected_codes(select: Iterable[str] | None, ignore: Iterable[str] | None) -> set[str]:
    """Codes enabled by ``select`` (default: all) minus ``ignore``; longest matching prefix wins, like ruff."""
    select = list(select or ["ALL"])
    ignore = list(ignore or [])
    enabled = set()
    for code in all_rules():
        best_sel = max((len(s) if s != "ALL" else 0 for s in select if s == "ALL" or code.startswith(s)), default=-1)
        best_ign = max((len(s) if s != "ALL" else 0 for s in ignore if s == "ALL" or code.startswith(s)), default=-1)
        if best_sel >= 0 and best_sel > best_ign:
            enabled.add(code)
    return enabled
