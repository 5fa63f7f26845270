"""Every lint rule against its fixture: expectations are trailing ``# JS101`` comments (flake8-bugbear style).

Each ``tests/lint_fixtures/JSxxx*.py`` is linted with only rule JSxxx selected. A line
that ends with ``# JS101`` (or ``# JS501, JS501`` for two hits) must be flagged exactly
that many times; no other line may be flagged. The text output of each rule's main
fixture is compared with ``tests/lint_snapshots/JSxxx.txt``; regenerate the snapshots
with ``JITSCOPE_UPDATE_SNAPSHOTS=1``.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from jitscope import lint
from jitscope.lint import lint_source
from jitscope.lint.registry import SECTIONS, all_rules
from jitscope.render.console.lint import format_text

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "lint_fixtures"
SNAPSHOTS = HERE / "lint_snapshots"
FIXTURE_FILES = sorted(FIXTURES.glob("JS*.py"))
EXPECT = re.compile(rb"#\s*(JS\d{3}(?:\s*,\s*JS\d{3})*)\s*$")


def expectations(data: bytes) -> Counter:
    out: Counter = Counter()
    for lineno, line in enumerate(data.split(b"\n"), 1):
        m = EXPECT.search(line.rstrip(b"\r"))
        if m:
            for code in re.split(rb"\s*,\s*", m.group(1)):
                out[(lineno, code.decode())] += 1
    return out


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.stem for p in FIXTURE_FILES])
def test_fixture(path: Path) -> None:
    code = path.stem[:5]
    data = path.read_bytes()
    expected = expectations(data)
    findings = lint_source(data, str(path), select=[code])
    actual = Counter((f.location.line, f.code) for f in findings)
    assert actual == expected, "\n".join(f"{f.location.line}: {f.code} {f.message}" for f in findings)
    if not path.stem.endswith(("_alias",)):
        assert expected, f"{path.name} has no positive case"


@pytest.mark.parametrize("code", list(all_rules()))
def test_every_rule_has_fixture_snapshot_and_docs(code: str) -> None:
    rule = all_rules()[code]
    assert (FIXTURES / f"{code}.py").is_file(), f"no fixture for {code}"
    assert (SNAPSHOTS / f"{code}.txt").is_file(), f"no snapshot for {code} (run with JITSCOPE_UPDATE_SNAPSHOTS=1)"
    sections = rule.sections()
    assert list(sections) == list(SECTIONS), f"{code} docstring sections: {list(sections)}"
    assert all(sections.values())
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
    assert rule.severity in ("error", "warning", "info")
    assert rule.fix in (None, "safe", "unsafe")
    if code not in ("JS001", "JS002", "JS003"):
        assert rule.nodes, f"{code} subscribes to no node type"


def test_rule_names_and_codes_unique() -> None:
    rules = list(all_rules().values())
    assert len({r.name for r in rules}) == len(rules)
    assert all(re.fullmatch(r"JS\d{3}", r.code) for r in rules)


@pytest.mark.parametrize("code", list(all_rules()))
def test_snapshot(code: str) -> None:
    path = FIXTURES / f"{code}.py"
    result = lint([str(path)], select=[code], config=False, jobs=1)
    text = format_text(result).replace(str(HERE.parent) + os.sep, "")
    snap = SNAPSHOTS / f"{code}.txt"
    if os.environ.get("JITSCOPE_UPDATE_SNAPSHOTS"):
        snap.write_text(text, encoding="utf-8")
    assert snap.read_text(encoding="utf-8") == text
