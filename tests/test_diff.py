"""`jitscope diff`: two real watch runs of a program compared, as CI would."""

from __future__ import annotations

import json

import pytest
from conftest import compile_lines

from jitscope._diff import diff
from jitscope.errors import UsageError

PROGRAM = '''
import sys
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    return jnp.tanh(x) * 2.0


@jax.jit
def loss(x):
    return jnp.sum(x ** 2)


for n in [8, 8, 8] + ([16] if "more" in sys.argv else []):
    step(jnp.ones(n))
loss(jnp.ones(4))
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import run_cli

    d = tmp_path_factory.mktemp("diff")
    prog = d / "prog.py"
    prog.write_text(PROGRAM)
    out = {}
    for name, extra in (("a", []), ("b", ["more"])):
        r = run_cli("watch", "-q", "--json", str(d / f"{name}.json"), "--events", str(d / f"{name}.jsonl"),
                    str(prog), *extra)
        assert r.returncode == 0, r.stderr
        out[name] = d / f"{name}.json"
        out[name + "_events"] = d / f"{name}.jsonl"
    out["dir"] = d
    return out


def test_a_new_recompile_is_named_with_its_cause_and_fails_ci(runs, cli):
    r = cli("diff", "--fail-on", "new-compiles", str(runs["a"]), str(runs["b"]))
    assert r.returncode == 3, r.stderr
    assert "step" in r.stdout and "1 -> 2" in r.stdout
    assert "shape" in r.stdout  # the new cause: an argument's shape changed (f32[8] -> f32[16])
    breach = [line for line in r.stderr.splitlines() if line.startswith("jitscope: diff --fail-on:")]
    assert len(breach) == 1 and "step: 2 compiles, was 1" in breach[0]
    assert "loss" not in r.stderr  # unchanged functions break nothing


def test_same_program_twice_passes_and_reports_no_change(runs, cli):
    r = cli("diff", "--fail-on", "new-compiles,new-causes", "--min-seconds", "60", str(runs["a"]), str(runs["a_events"]))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no function changed" in r.stdout and "passed" in r.stdout


def test_library_result_matches_the_events_file(runs):
    # compile times on a loaded machine vary: only counts and causes are asserted here
    from_json = diff(runs["a"], runs["b"], fail_on=["new-causes"], min_seconds=60)
    from_events = diff(runs["a_events"], runs["b_events"], fail_on=["new-causes"], min_seconds=60)
    for res in (from_json, from_events):
        step = next(d for d in res.functions if d.function == "step")
        assert (step.compiles_a, step.compiles_b, step.status) == (1, 2, "more_compiles")
        assert step.new_causes == ["shape_change"] and "f32[8]" in step.first_new
        assert res.functions[0].function == "step"  # the regression first
        assert [v.split(":")[0] for v in res.violations] == ["step"]
        loss = next(d for d in res.functions if d.function == "loss")
        assert loss.status == "same"
    assert from_json.seconds_b >= from_json.seconds_a * 0  # both parsed
    assert from_json.program_a.endswith("prog.py") and from_events.program_a == ""


def test_json_output_round_trips_through_report(runs, cli, tmp_path):
    out = tmp_path / "d.json"
    r = cli("diff", "--json", str(out), str(runs["a"]), str(runs["b"]))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["kind"] == "diff" and data["compiles_b"] == data["compiles_a"] + 1
    html = tmp_path / "d.html"
    r = cli("report", str(out), "-o", str(html))
    assert r.returncode == 0, r.stderr
    assert "step" in html.read_text()


def test_html_layout_in_the_browser(runs, tmp_path):
    from browser import dump_dom, screenshot

    from jitscope.render.html import render

    res = diff(runs["a"], runs["b"], fail_on=["new-compiles"], min_seconds=60)
    page = tmp_path / "diff.html"
    page.write_text(render(res))
    dom = dump_dom(page)
    visible = dom.split('id="jitscope-data"', 1)[0]
    for title in ("Summary", "Functions"):
        assert f"<h2>{title}</h2>" in visible
    import re

    lessons = re.findall(r'<div class="lesson[^"]*">([^<]*)</div>', visible)
    assert lessons[0].startswith("1 compile more (2 -&gt; 3); compile time: ") and "1 breach" in lessons[1], lessons
    functions = visible.split('id="functions"', 1)[1].split("</section>", 1)[0]
    assert "more compiles" in functions and "1 -&gt; 2" in functions and "shape_change" in functions
    assert "1 other function unchanged" in functions  # loss
    assert '"file":' not in visible  # records are phrased, not dumped as JSON
    assert screenshot(page, tmp_path / "diff.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_time_is_noise_aware(runs):
    from jitscope.analyze.run_diff import time_change

    assert time_change(1.0, 1.2, 0.25, 0.05) == "within_noise"  # 20% < 25%
    assert time_change(0.01, 0.04, 0.25, 0.05) == "within_noise"  # 4x, but 30 ms
    assert time_change(1.0, 1.5, 0.25, 0.05) == "slower"
    assert time_change(1.5, 1.0, 0.25, 0.05) == "faster"
    res = diff(runs["a"], runs["a"], fail_on=["time:0"])
    assert res.violations == [] and res.time_change == "within_noise"


@pytest.mark.parametrize("args,message", [
    (["--fail-on", "sometimes"], "--fail-on: 'sometimes' is not one of"),
    (["--fail-on", "time:nan"], "--fail-on: 'time:nan'"),
    (["--time-threshold=-5%"], "not a threshold"),
    (["--min-seconds", "nan"], "not a number of seconds"),
])
def test_bad_options_are_one_line(runs, cli, args, message):
    r = cli("diff", *args, str(runs["a"]), str(runs["b"]))
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_bad_inputs_are_one_line(runs, cli, tmp_path):
    lint = tmp_path / "lint.json"
    assert cli("lint", "--json", str(lint), str(runs["dir"] / "prog.py")).returncode in (0, 1)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"function": 3}\n')
    for path, message in ((tmp_path / "missing.json", "no such file"), (lint, "holds a 'lint' result"),
                          (garbage, "not a watch --events line")):
        r = cli("diff", str(runs["a"]), str(path))
        assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = cli("diff", "--json", str(runs["a"]), str(runs["a"]), str(runs["b"]))
    assert r.returncode == 2 and "jitscope:" in r.stderr  # an output onto a compared run is refused
    assert json.loads(runs["a"].read_text())["kind"] == "watch"  # and the run is intact


def test_truncated_events_file_keeps_complete_lines(runs, tmp_path):
    text = runs["b_events"].read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) - 20])  # killed mid-line
    res = diff(runs["a_events"], cut)
    assert res.compiles_b == len(compile_lines(runs["b_events"])) - 1
    with pytest.raises(UsageError):
        diff(runs["a"], runs["a"], time_threshold=float("nan"))


def test_public_api():
    import jitscope

    assert jitscope.diff is diff and jitscope.DiffResult.kind == "diff"
