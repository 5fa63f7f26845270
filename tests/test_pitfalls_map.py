"""The pitfall taxonomy in code (jitscope.analyze.pitfalls) and in docs/pitfalls.md agree with the catalogs:
every class observable at run time names a watch code that exists (or says why not), every watch code
reports a class, every lint rule named exists, and the docs table says the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jitscope.analyze.pitfalls import BY_NAME, CLASSES, classes_of_code, finding_classes
from jitscope.analyze.runtime_codes import CODES
from jitscope.lint.registry import all_rules

DOC = Path(__file__).resolve().parent.parent / "docs" / "pitfalls.md"


def test_the_taxonomy_has_its_39_classes_once():
    assert len(CLASSES) == 39 and len(BY_NAME) == 39


@pytest.mark.parametrize("c", CLASSES, ids=lambda c: c.name)
def test_each_class_is_covered_or_says_why_not(c):
    assert c.runtime in ("yes", "partly", "no")
    assert c.stage in {f"S{i}" for i in range(1, 9)}
    if c.runtime != "yes" or not c.watch:
        assert len(c.not_observed) > 40, f"{c.name}: say what is not observable at run time, and why"
    if c.runtime == "no":
        assert not c.watch
    for code in c.watch:
        assert code in CODES, f"{c.name}: {code} is no runtime code"
    for rule in c.lint:
        assert rule in all_rules(), f"{c.name}: {rule} is no lint rule"


def test_every_runtime_code_reports_a_class():
    orphans = [code for code in CODES if not classes_of_code(code)]
    assert not orphans


def test_docs_table_matches_the_code():
    rows = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\| \[`([a-z0-9-]+)`\]\(#[a-z0-9-]+\) \| (S\d) \| (\w+) \| (.*?) \| (.*?) \|", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3), tuple(re.findall(r"\[(JW\d{3})\]", m.group(4))),
                                tuple(re.findall(r"\[(JS\d{3})\]", m.group(5))))
    assert set(rows) == set(BY_NAME)
    for c in CLASSES:
        assert rows[c.name] == (c.stage, c.runtime, c.watch, c.lint), c.name
    text = DOC.read_text()
    for c in CLASSES:
        assert f"### {c.name}" in text


def test_finding_classes_follow_the_details():
    assert finding_classes({"code": "JW101", "details": {"error": "TracerBoolConversionError"}}) == \
        {"traced-control-flow"}
    assert finding_classes({"code": "JW101", "details": {"error": "UnexpectedTracerError"}}) == {"leaked-tracer"}
    assert finding_classes({"code": "JW403", "details": {"key_difference": "weak type"}}) == \
        {"recompile-dtype-or-weak-type"}
    assert finding_classes({"code": "JW403", "details": {"key_difference": "a new function object"}}) == \
        {"recompile-fresh-jit-object", "recompile-identity-hashed-static"}
    assert finding_classes({"code": "JW201", "details": {"kind": "print"}}) == {"trace-time-side-effect"}
    assert "leaked-tracer" in finding_classes({"code": "JW201", "details": {"kind": "global"}})
    assert finding_classes({"code": "JW405", "details": {}}) == {"recompile-shape-change"}
    assert finding_classes({"code": "JW602", "details": {}}) == {"prng-key-reuse", "stale-captured-value"}


def test_each_slow_compile_cause_the_analyzer_records_maps_to_its_class():
    """JW402's details["cause"] is compile_cost's verdict cause: the map must read the same words (it read
    "bloat" while the analyzer wrote "unrolled", so an unrolled loop's JW402 counted as no loop)."""
    from jitscope.analyze.slow_compile import _CAUSES

    expected = {"unrolled": "unrolled-python-loop", "constants": "captured-large-constant", "slow_for_size": None}
    assert set(_CAUSES) == set(expected)
    for cause, cls in expected.items():
        got = finding_classes({"code": "JW402", "details": {"cause": cause}})
        assert "slow-compile" in got
        assert (cls in got) if cls else got == {"slow-compile"}, (cause, got)
