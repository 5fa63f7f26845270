"""The thin CLI: help, version, usage errors with exit 2 and one line, report on bad files."""

from __future__ import annotations

import json

from jitscope import __version__
from jitscope.cli import COMMANDS


def test_help_lists_every_command(cli):
    proc = cli("--help")
    assert proc.returncode == 0
    for name in COMMANDS:
        assert name in proc.stdout


def test_version(cli):
    proc = cli("--version")
    assert proc.returncode == 0 and __version__ in proc.stdout


def test_unknown_command_is_usage_error(cli):
    proc = cli("frobnicate")
    assert proc.returncode == 2
    assert "jitscope:" in proc.stderr and "Traceback" not in proc.stderr


def test_report_on_missing_and_bad_files(cli, tmp_path):
    proc = cli("report", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "no such file" in proc.stderr and "Traceback" not in proc.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = cli("report", str(bad))
    assert proc.returncode == 2 and "not a jitscope JSON result" in proc.stderr
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"kind": "compare", "format_version": 99}))
    proc = cli("report", str(other))
    assert proc.returncode == 2 and "format_version 99" in proc.stderr
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"kind": "nonsense", "format_version": 1}))
    proc = cli("report", str(unknown))
    assert proc.returncode == 2 and "unknown result kind 'nonsense'" in proc.stderr
