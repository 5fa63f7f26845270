"""One meaning per flag name across commands (issue #26 item 6).

A flag that several commands share takes the same kind of value everywhere (its metavar says which);
renamed flags keep their old spelling as a hidden alias, so the stable CLI does not break.
"""

from __future__ import annotations

import argparse

import pytest

from jitscope.cli import COMMANDS, build_parser

PARSER = build_parser()
SUB = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)).choices

# Shared names that still mean different things, each kept for a stated reason (README "Commands" and the
# report of issue #26 list them): doctor's --json prints JSON to stdout (no file); lint's --format picks
# the report on stdout (ruff's names: text/json/sarif/github), report's picks a renderer (console/html/...).
KNOWN_SPLITS = {"--json": {"doctor"}, "--format": {"lint", "report"}, "-f": {"report"}}


def kinds() -> dict[str, dict[str, str]]:
    """flag -> command -> what it takes (its metavar, 'choices', or 'flag' for no value)."""
    out: dict[str, dict[str, str]] = {}
    for cmd in COMMANDS:
        for action in SUB[cmd]._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            kind = "flag" if action.nargs == 0 else "choices" if action.choices else str(action.metavar)
            for opt in action.option_strings:
                out.setdefault(opt, {})[cmd] = kind
    return out


def test_a_shared_flag_takes_the_same_kind_of_value_in_every_command():
    split = {}
    for opt, per_cmd in kinds().items():
        odd = {c for c in per_cmd if c not in KNOWN_SPLITS.get(opt, set())}
        if len({per_cmd[c] for c in odd}) > 1:
            split[opt] = per_cmd
    assert not split, split


def test_no_visible_flag_is_called_budget():
    """In watch and the pytest plugin a budget is a compile count; sampling time is --sample-seconds."""
    assert not [opt for opt in kinds() if "budget" in opt]


@pytest.mark.parametrize("cmd, target", [("compare", "m:f"), ("inspect", "m:f"), ("scale", "m:make")])
def test_old_spellings_still_parse(cmd, target):
    new = PARSER.parse_args([cmd, target, "--sample-seconds", "0.25"])
    old = PARSER.parse_args([cmd, target, "--budget", "0.25"])
    assert new.budget == old.budget == 0.25
    default = PARSER.parse_args([cmd, target]).budget
    assert default == {"compare": 0.5, "inspect": 0.3, "scale": 0.1}[cmd]
    if cmd == "inspect":
        assert PARSER.parse_args([cmd, target, "--eager-budget", "2"]).eager_budget == 2.0
        assert PARSER.parse_args([cmd, target, "--eager-timeout", "2"]).eager_budget == 2.0
        assert PARSER.parse_args([cmd, target]).eager_budget == 3.0


def test_lint_output_has_the_name_report_and_warmup_use(tmp_path):
    out = str(tmp_path / "r.txt")
    for spelling in ("-o", "--output", "--output-file"):
        assert PARSER.parse_args(["lint", spelling, out]).output_file == out
    assert PARSER.parse_args(["report", "x.json", "--output", out]).output == out
