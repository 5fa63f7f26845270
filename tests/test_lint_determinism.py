"""lint's output is a function of the files alone: byte-identical run after run and whatever ``--jobs`` (issue #25 item 6).

``# noqa``, SARIF baselines and diffs between runs all need a finding to land on the same line
every time. No analysis state may be keyed by the ``id()`` of an object that can die: Python
reuses ids, and a location cached under the id of a short-lived object once put JS202 findings on
another loop's line (or twice on one line) in 4 runs out of 40.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jitscope
from jitscope.lint.context import Context
from jitscope.lint.rules._util import Span
from jitscope.render.console.lint import format_text

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [str(ROOT / "tests" / "lint_fixtures"), str(ROOT / "tests" / "lint_lookalikes"),
          str(ROOT / "src" / "jitscope" / "gallery")]


def test_a_location_is_never_taken_from_a_dead_object():
    """Spans (a range over two nodes) live for one report; the next one often gets the same id."""
    src = "\n".join(f"x{i} = {i}" for i in range(100)) + "\n"
    tree = ast.parse(src)
    ctx = Context(tree, src, "m.py", set())
    lines = [ctx.location(Span(stmt.targets[0], stmt.value)).line for stmt in tree.body]
    assert lines == list(range(1, 101))
    segments = [ctx.segment(Span(stmt.targets[0], stmt.value)) for stmt in tree.body]
    assert segments == [f"x{i} = {i}" for i in range(100)]


def _text(result) -> str:
    return format_text(result, snippet=True)


def test_forty_runs_give_the_same_bytes():
    first = _text(jitscope.lint(CORPUS, config=False, jobs=1))
    assert "JS202" in first and "JS101" in first  # the corpus exercises the rules that once drifted
    for _ in range(39):
        assert _text(jitscope.lint(CORPUS, config=False, jobs=1)) == first


@pytest.mark.skipif(not hasattr(os, "fork"), reason="parallel lint forks its workers")
def test_one_and_two_processes_give_the_same_bytes(tmp_path):
    files = jitscope.lint(CORPUS, config=False, jobs=1).files_checked
    assert files >= 24  # enough files for the parallel runner to split them
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = []
    for jobs in ("1", "2"):
        proc = subprocess.run([sys.executable, "-m", "jitscope", "lint", "--no-config", "--exit-zero", "-j", jobs,
                               *CORPUS], capture_output=True, env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        out.append(proc.stdout)
    assert out[0] == out[1]
    assert out[0].count(b"JS101") > 5
