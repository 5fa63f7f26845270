"""Bad input to every command: one line ``jitscope: <cause>``, exit 2, no traceback, nothing lost.

Unwritable ``--json`` / ``-o`` / ``--html`` / ``--plot`` destinations are refused BEFORE measuring
(nothing is printed to stdout); malformed result files, huge shapes and unhashable static values
are usage errors.
"""

from __future__ import annotations

import json

import pytest

from jitscope.cli._common import check_writable
from jitscope.errors import UsageError
from jitscope.results import load_result

PROGRAM = """\
import jax.numpy as jnp


def f(x, n=2):
    return jnp.sin(x) * n


def make(n):
    return f, (jnp.ones(n),)
"""


@pytest.fixture
def prog(tmp_path):
    path = tmp_path / "badin_prog.py"
    path.write_text(PROGRAM, encoding="utf-8")
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    return path, blocker / "sub" / "out.json"  # the parent "directory" is a regular file


def assert_usage_error(proc, *words):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("command", ["compare", "inspect", "scale", "lint", "demo"])
def test_unwritable_json_is_refused_before_measuring(cli, prog, command, tmp_path):
    path, bad = prog
    args = {
        "compare": ["compare", f"{path}:f", "--arg", "f32[4]", "--sample-seconds", "0.01", "--min-samples", "1"],
        "inspect": ["inspect", f"{path}:f", "--arg", "f32[4]", "--sample-seconds", "0.01"],
        "scale": ["scale", f"{path}:make", "--sizes", "4,8", "--sample-seconds", "0.01"],
        "lint": ["lint", str(path)],
        "demo": ["demo", "--only", "selu", "--quick", "--no-progress"],
    }[command]
    proc = cli(*args, "--json", str(bad), cwd=tmp_path)
    assert_usage_error(proc, "--json", str(bad), "not a directory")
    assert proc.stdout == ""  # refused before anything was measured or rendered
    assert not (tmp_path / "a_file").is_dir()


@pytest.mark.parametrize("option", [["lint", "-o"], ["demo", "--html"], ["scale", "--plot"]])
def test_unwritable_output_options_are_refused_before_measuring(cli, prog, option, tmp_path):
    path, bad = prog
    extra = {"lint": [str(path)], "demo": ["--only", "selu", "--quick", "--no-progress"],
             "scale": [f"{path}:make", "--sizes", "4,8", "--sample-seconds", "0.01"]}[option[0]]
    proc = cli(option[0], *extra, option[1], str(bad), cwd=tmp_path)
    assert_usage_error(proc, "not a directory")
    assert proc.stdout == ""


def test_json_into_a_new_directory_still_works(cli, prog, tmp_path):
    path, _ = prog
    out = tmp_path / "new" / "deeper" / "r.json"
    proc = cli("inspect", f"{path}:f", "--arg", "f32[4]", "--sample-seconds", "0.01", "--no-numerics", "--json", str(out),
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert load_result(out).kind == "inspect" and "f" in proc.stdout


def test_check_writable(tmp_path):
    check_writable(None)
    check_writable(str(tmp_path / "x" / "y" / "r.json"))  # creatable
    (tmp_path / "r.json").write_text("{}")
    check_writable(str(tmp_path / "r.json"))  # overwritable
    with pytest.raises(UsageError, match="is a directory"):
        check_writable(str(tmp_path))
    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError, match="--html .*not a directory"):
        check_writable(str(tmp_path / "f" / "r.html"), "--html")


def test_result_save_to_an_unwritable_path_is_a_usage_error(tmp_path):
    import jitscope

    result = jitscope.lint([], config=False, jobs=1)
    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError, match=r"^cannot write .*r\.json: "):
        result.save(tmp_path / "f" / "r.json")
    with pytest.raises(UsageError, match=r"^cannot write "):
        result.save(tmp_path)  # a directory
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]  # no stray .tmp file


MALFORMED = [
    ({"kind": "watch", "format_version": 1, "events": "abc"}, "not a valid watch result"),
    ({"kind": "watch", "format_version": 1, "events": [5]}, "not a valid watch result"),
    ({"kind": "compare", "format_version": 1, "variants": [{"name": "a", "first_call": 5}]},
     "not a valid compare result"),
    ({"kind": "scale", "format_version": 1, "points": ["x"]}, "not a valid scale result"),
    ({"kind": ["compare"], "format_version": 1}, "'kind' is not a string"),
]


@pytest.mark.parametrize("data,words", MALFORMED)
def test_malformed_result_of_a_known_kind_is_a_usage_error(tmp_path, data, words):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UsageError, match=words) as info:
        load_result(path)
    assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)


def test_report_on_malformed_json_exits_2(cli, tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(MALFORMED[0][0]), encoding="utf-8")
    assert_usage_error(cli("report", str(path)), "not a valid watch result")


def test_report_to_an_unwritable_output_exits_2(cli, prog, tmp_path):
    path, bad = prog
    good = tmp_path / "lint.json"
    assert cli("lint", str(path), "--json", str(good), cwd=tmp_path).returncode in (0, 1)
    for fmt in ("console", "json"):
        assert_usage_error(cli("report", str(good), "-f", fmt, "-o", str(bad)), "cannot write")


def test_huge_arg_shape_exits_2(cli, prog, tmp_path):
    path, _ = prog
    proc = cli("inspect", f"{path}:f", "--arg", "f32[100000,100000,100000]", cwd=tmp_path)
    assert_usage_error(proc, "f32[100000,100000,100000]", "memory")


@pytest.mark.parametrize("command", ["inspect", "compare"])
def test_unhashable_static_exits_2(cli, prog, tmp_path, command):
    path, _ = prog
    proc = cli(command, f"{path}:f", "--arg", "f32[4]", "--static", "n=[1,2]", cwd=tmp_path)
    assert_usage_error(proc, "static argument n=[1, 2] is unhashable; pass a tuple")
