"""One renderer contract: ``render(result, fmt) -> str`` for every kind and format, chosen in one place.

Every (kind, format) pair either renders or is refused with one ``jitscope:`` line before anything
is written; ``jitscope report`` and the commands' ``--html`` go through the same function.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jitscope.errors import UsageError
from jitscope.render import FORMATS, check_format, format_for_path, render
from jitscope.results import load_result

GOLD = Path(__file__).resolve().parent / "gold"
KINDS = ("compare", "demo", "watch", "inspect", "scale", "lint", "merge")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_kind_in_every_format_renders_or_is_refused(kind, fmt):
    result = load_result(GOLD / f"{kind}.json")
    if fmt == "sarif" and kind != "lint":
        with pytest.raises(UsageError, match=f"SARIF is for lint results; a '{kind}' result renders as"):
            render(result, fmt)
        return
    text = render(result, fmt)
    assert isinstance(text, str) and text.strip()
    if fmt == "json":
        assert json.loads(text) == json.loads(result.to_json())
    elif fmt == "sarif":
        assert json.loads(text)["version"] == "2.1.0"
    elif fmt == "html":
        assert text.startswith("<!DOCTYPE html>")
    else:
        assert "\x1b[" not in text  # plain unless asked for colour


def test_console_colour_only_on_request():
    result = load_result(GOLD / "watch.json")
    assert "\x1b[" in render(result, "console", color=True)
    assert "\x1b[" not in render(result, "console")


def test_format_for_path_and_unknown_formats():
    assert [format_for_path(p) for p in ("r.html", "R.HTM", "r.json", "r.sarif", "r.txt", None)] == \
        ["html", "html", "json", "sarif", "console", "console"]
    with pytest.raises(UsageError, match="unknown format 'pdf'"):
        check_format("watch", "pdf")


@pytest.mark.parametrize("kind", ["inspect", "scale", "watch", "compare", "demo"])
def test_report_refuses_sarif_for_non_lint_results_in_one_line(cli, tmp_path, kind):
    out = tmp_path / "r.sarif"
    p = cli("report", str(GOLD / f"{kind}.json"), "-o", str(out))
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        f"jitscope: SARIF is for lint results; a '{kind}' result renders as console, html or json"]
    assert not out.exists()


def test_report_writes_every_supported_format(cli, tmp_path):
    for suffix, marker in ((".html", "<!DOCTYPE html>"), (".json", '"kind": "lint"'), (".sarif", '"2.1.0"'),
                           (".txt", "JS401")):
        out = tmp_path / f"lint{suffix}"
        p = cli("report", str(GOLD / "lint.json"), "-o", str(out))
        assert p.returncode == 0, p.stderr
        assert marker in out.read_text(encoding="utf-8")
