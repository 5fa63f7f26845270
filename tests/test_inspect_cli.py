"""`jitscope inspect` as a user runs it: real subprocesses, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest

from jitscope.schema import validate


def test_inspect_seed003_end_to_end(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("inspect", "inspect_integral:integrate_builtin", "--arg", "f32[]", "--json", str(out),
            "--dump", str(tmp_path / "d"), "--sample-seconds", "0.05", "--eager-timeout", "0.2")
    assert p.returncode == 0, p.stderr
    assert "sum(...)" in p.stdout and "use jnp.sum" in p.stdout and "inspect_integral.py:26" in p.stdout
    data = json.loads(out.read_text())
    validate(data)
    # the eager run (seconds: 400 unrolled elements compile op by op) stopped at its budget, said so
    assert [f["name"] for f in data["findings"] if f["code"] == "numerics-skipped"] == ["over-budget"]
    assert data["bloat"][0]["repeats"] == 400
    assert (tmp_path / "d" / "04_hlo.after.txt").exists()
    # the report re-renders from JSON alone
    r = cli("report", str(out))
    if r.returncode == 0:  # `report` belongs to another issue; only check it when it exists
        assert "jnp.sum" in r.stdout


def test_inspect_static_option(cli):
    p = cli("inspect", "inspect_tracer_errors:shape_from_tracer", "--arg", "f32[]", "--static", "n=5",
            "--no-numerics")
    assert p.returncode == 0, p.stderr
    assert "n=5" in p.stdout


def test_tracer_error_exits_1_with_one_line(cli):
    p = cli("inspect", "inspect_tracer_errors:bool_conversion", "--arg", "f32[]")
    assert p.returncode == 1
    assert "Traceback" not in p.stderr + p.stdout
    [line] = p.stderr.strip().splitlines()
    assert line.startswith("jitscope: tracing inspect_tracer_errors:bool_conversion failed: TracerBoolConversionError")
    assert "inspect_tracer_errors.py:9" in p.stdout and "lax.cond" in p.stdout


@pytest.mark.parametrize("argv,code,needle", [
    (["inspect_integral:no_such_fn", "--arg", "f32[]"], 2, "has no attribute 'no_such_fn'"),
    (["no_such_module_xyz:f", "--arg", "f32[]"], 2, "cannot import module"),
    (["inspect_integral:integrate_builtin", "--arg", "f32[]", "--arg", "f32[]"], 2, "wrong arguments"),
    (["inspect_tracer_errors:NOT_A_FUNCTION"], 2, "not a function"),
    (["inspect_tracer_errors:not_traceable", "--arg", "f32[]"], 1, "TypeError"),
    (["inspect_integral:integrate_builtin", "--arg", "f32[x]"], 2, "does not parse"),
    (["inspect_integral:integrate_builtin", "--arg", "f32[]", "--dump", "/proc/no/such/dir"], 2, "--dump"),
], ids=["no-function", "no-module", "arg-count", "not-callable", "not-traceable", "bad-spec", "bad-dump"])
def test_bad_input_one_line(cli, argv, code, needle):
    p = cli("inspect", *argv)
    assert p.returncode == code, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("jitscope: ") and needle in last


def test_inspect_args_from_and_no_run(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("inspect", "inspect_seed002:pure", "--args-from", "inspect_seed002:pure_args", "--seed", "1",
            "--no-run", "--json", str(out))
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    assert set(data["timings"]) == {"trace", "lower", "compile"}
    assert data["jaxpr"]["inputs"] == ["x: f32[3]", "y: f32[]"]
    assert data["numerics"] is None and "inspect_seed002:pure(x=f32[3], y=f32[])" in p.stdout


def test_print_in_jit_shows_the_tracer_it_printed(cli):
    p = cli("inspect", "inspect_seed002:side_effects", "--arg", "f32[]", "--no-numerics")
    assert p.returncode == 0, p.stderr
    assert "print() at" in p.stdout and "inspect_seed002.py:20" in p.stdout
    assert "printed while tracing: " in p.stdout and "Tracer" in p.stdout
