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

# No shared name means two things (docs/cli.md "Names"): --json PATH writes the result's JSON to a file in every
# command (doctor's included); --format picks what is printed (lint, report, doctor: each its own choices).
KNOWN_SPLITS: dict[str, set[str]] = {}


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


def test_no_visible_flag_says_trace_unless_it_is_about_jax_tracing():
    """"trace" is JAX's tracing (--trace-evidence); the timeline file of compiles is --timeline."""
    assert [opt for opt in kinds() if "trace" in opt] == ["--trace-evidence"]
    assert set(kinds()["--timeline"]) == {"watch", "merge"}


def test_every_json_option_takes_a_path():
    assert set(kinds()["--json"].values()) == {"PATH"}
    assert "doctor" in kinds()["--json"]


@pytest.mark.parametrize("cmd, argv", [("watch", ["prog.py"]), ("merge", ["run"])])
def test_old_trace_spelling_still_parses_with_a_note(cmd, argv, tmp_path):
    out = str(tmp_path / "t.json")
    old = PARSER.parse_args([cmd, "--trace", out, *argv])
    assert old.timeline == out == PARSER.parse_args([cmd, "--timeline", out, *argv]).timeline
    assert old.renamed == ["--trace is a deprecated spelling of --timeline (docs/cli.md); it still works"]
    assert not hasattr(PARSER.parse_args([cmd, "--timeline", out, *argv]), "renamed")


def _cli(*argv, cwd=None):
    import os
    import subprocess
    import sys

    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jitscope", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_an_old_spelling_works_end_to_end_and_says_so_once_after_the_output(tmp_path):
    (tmp_path / "prog.py").write_text("import jax, jax.numpy as jnp\njax.jit(lambda x: x + 1)(jnp.ones(3))\n")
    p = _cli("watch", "-q", "--trace", "t.json", "prog.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "t.json").read_text().startswith(("{", "["))
    notes = [line for line in p.stderr.splitlines() if "deprecated" in line]
    assert notes == ["jitscope: note: --trace is a deprecated spelling of --timeline (docs/cli.md); it still works"]


def test_an_old_spelling_never_joins_a_one_line_error(tmp_path):
    p = _cli("watch", "--trace", "t.json", "missing.py", cwd=tmp_path)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "deprecated" not in p.stderr, p.stderr


def test_doctor_json_takes_a_path_and_a_bare_json_still_prints_json(tmp_path):
    import json

    p = _cli("doctor", "--json", "d.json", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("jax "), p.stderr
    assert json.loads((tmp_path / "d.json").read_text())["backend"] == "cpu"
    assert "deprecated" not in p.stderr
    p = _cli("doctor", "--format", "json", cwd=tmp_path)
    assert json.loads(p.stdout)["backend"] == "cpu" and "deprecated" not in p.stderr
    p = _cli("doctor", "--json", cwd=tmp_path)  # the old meaning
    assert json.loads(p.stdout)["backend"] == "cpu"
    assert p.stderr.splitlines() == ["jitscope: note: a bare --json is a deprecated spelling of --format json "
                                     "(docs/cli.md); --json PATH writes a file"]


@pytest.mark.parametrize("fn, old, new", [("compare", "budget_s", "sample_seconds"),
                                          ("scale", "budget_s", "sample_seconds"),
                                          ("inspect", "budget_s", "sample_seconds"),
                                          ("inspect", "eager_budget_s", "eager_timeout")])
def test_python_api_keywords_are_named_as_the_flags_and_old_ones_still_work(fn, old, new):
    """A keyword is its flag's name (--sample-seconds -> sample_seconds); the old keyword is passed on with a
    DeprecationWarning naming both, and the two at once are a TypeError."""
    import inspect as pyinspect
    import warnings

    import jax
    import jax.numpy as jnp

    import jitscope

    params = pyinspect.signature(getattr(jitscope, fn)).parameters
    assert new in params and old not in params and "budget" not in " ".join(params)
    calls = {"compare": lambda **kw: jitscope.compare({"jit": jax.jit(jnp.sin)}, (jnp.ones(4),), min_samples=2,
                                                        phases=False, **kw),
             "scale": lambda **kw: jitscope.scale(lambda n: (jnp.sin, (jnp.ones(n),)), [4, 8], repeats=1, **kw),
             "inspect": lambda **kw: jitscope.inspect(jnp.sin, jnp.ones(4), side_effects=False, **kw)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calls[fn](**{old: 0.01})
    ours = [w for w in caught if issubclass(w.category, DeprecationWarning) and "jitscope." in str(w.message)]
    assert [str(w.message) for w in ours] == [f"jitscope.{fn}: {old}= is deprecated; use {new}="]
    assert ours[0].filename == __file__  # points at the caller's line
    with pytest.raises(TypeError, match=f"both {old}= and its new name {new}="):
        calls[fn](**{old: 0.01, new: 0.01})
