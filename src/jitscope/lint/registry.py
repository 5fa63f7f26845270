"""The rule catalog: a ``Rule`` is one unit (code, name, message, severity, check, fix safety, docs).

Every rule lives in its own module under ``lint/rules/`` and subclasses ``Rule``. Its
docstring has fixed sections (``What it does``, ``Why is this bad?``, ``Example``,
``Use instead``, ``Fix safety``); ``jitscope rules`` and ``docs/rules.md`` are generated
from them, so a rule's message and its documentation never drift apart. Codes are stable
and never reused: a retired rule keeps its code out of circulation.

Code groups:

- ``JS0xx`` the file itself (syntax error, undecodable bytes)
- ``JS1xx`` concretization: Python needs a concrete value from a traced one (fails under jit)
- ``JS2xx`` compile time, graph bloat and host round trips (unrolled loops, builtin reductions, re-jitting)
- ``JS3xx`` static shapes (boolean masks, data-dependent output sizes)
- ``JS4xx`` side effects that run only while tracing
- ``JS5xx`` stale captures: globals baked into the compiled graph
- ``JS6xx`` array API misuse (in-place updates, unhashable static arguments)
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UsageError
from ..model import Finding, Location
from .rule import GROUPS as GROUPS
from .rule import SECTIONS as SECTIONS
from .rule import Rule as Rule
from .rule import parse_sections as parse_sections
from .rules import RULE_CLASSES

_RULES: dict[str, type[Rule]] | None = None


def all_rules() -> dict[str, type[Rule]]:
    """Every rule, by code, in code order."""
    global _RULES
    if _RULES is None:
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


def parse_finding(code: str, message: str, filename: str, line: int = 1, col: int | None = 1) -> Finding:
    """A finding of rule ``code`` (its severity and name from the catalog) at ``filename:line``."""
    rule = all_rules()[code]
    return Finding(code, message, rule.severity, Location(filename, max(line, 1), col), rule.name,  # type: ignore[arg-type]
                   confidence="certain")
