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
    if not path.stem.endswith(("_alias",)) and code not in ("JS004", "JS701"):  # JS004: a jitscope bug;
        # JS701: only a run's evidence (tests/test_lint_evidence_chain.py); no source alone triggers them
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
    if code not in ("JS001", "JS002", "JS003", "JS004", "JS701"):
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


def test_js202_trip_counts_the_source_does_not_fix_are_info_and_short_constructed_arrays_are_quiet():
    """JS202's cost claim needs a trip count: a literal of 16 or more, or an array's data size. A count set by
    static values (``jnp.arange(2 * r + 1)`` of a static parameter) or by a length of a value not surely an array (``len(xs)`` of a
    Flax input, a list of arrays most likely) is said as info; ``jnp.arange(3)`` is a small unroll, as
    ``range(3)``. Each runs under real jit with the counts the finding names."""
    import jax
    import jax.numpy as jnp

    src = '''
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def psf(img, r):
    out = img
    for off in jnp.arange(2 * r + 1):
        out = out + jnp.roll(img, off)
    return out


@jax.jit
def small(img):
    for off in jnp.arange(3):
        img = img + jnp.roll(img, off)
    return img


@jax.jit
def big(img):
    for off in jnp.arange(64):
        img = img + jnp.roll(img, off)
    return img


@jax.jit
def layers(xs):
    h = 0.0
    for i in range(len(xs)):
        h = h + jnp.tanh(xs[i])
    return h


@jax.jit
def shifts(img):
    offsets = jnp.arange(-R, R + 1)
    out = img
    for o in offsets:
        out = out + jnp.roll(img, o)
    return out


R = 1
'''
    ns: dict = {}
    exec(compile(src, "js202_counts.py", "exec"), ns)
    img = jnp.ones(5)
    assert ns["psf"](img, 1).shape == (5,)
    for name in ("small", "big", "shifts"):
        assert ns[name](img).shape == (5,)
    assert ns["layers"]([jnp.ones(2), jnp.ones(2)]).shape == (2,)  # a list of two arrays: two trips
    eqns = len(jax.make_jaxpr(ns["big"].__wrapped__)(img).jaxpr.eqns)
    assert eqns > 64  # 64 copies of the body: the warned one is large
    found = {(f.location.line, f.severity) for f in lint_source(src, "js202_counts.py") if f.code == "JS202"}
    # psf: `2 * r + 1` of a static parameter, its caller's (info); shifts: `R + 1 - (-R)` with the module's `R = 1`,
    # three trips the source fixes (quiet, as `range(3)`)
    assert found == {(11, "info"), (25, "warning"), (33, "info")}, found
