"""The bad-input table (issue #9 items 5 and 7): every command and option, given a bad value,
exits with its documented code and prints exactly one ``jitscope: <cause>`` line on stderr
(no usage block, no traceback), and nothing on stdout.

The table runs the real CLI entry point in-process (fast: most cases stop before JAX is
imported); the cases where a user module misbehaves at import also run as real subprocesses.
"""

from __future__ import annotations

import pytest

from jitscope.cli import main

PROG = """\
import jax.numpy as jnp

NOT_A_FUNCTION = 3


def f(x, n=2):
    return jnp.sin(x) * n


def make(n):
    return f, (jnp.ones(n),)


def exits(seed=0):
    raise SystemExit(4)
"""

DEEP = "[" * 20_000 + "]" * 20_000
DEEP_MINUS = "-" * 20_000 + "1"
CALL = ["--budget", "0.01"]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "bm_prog.py").write_text(PROG, encoding="utf-8")
    (tmp_path / "bm_exits.py").write_text("import sys\n\nsys.exit(5)\n\n\ndef f(x):\n    return x\n", encoding="utf-8")
    (tmp_path / "bm_multiline.py").write_text('raise RuntimeError("first line\\nsecond line")\n', encoding="utf-8")
    (tmp_path / "bm_branch.py").write_text("def f(x):\n    if x > 0:\n        return x\n    return -x\n",
                                           encoding="utf-8")
    (tmp_path / "a_file").write_text("x\n", encoding="utf-8")
    (tmp_path / "r.json").write_text("{not json\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


# (argv, exit code, words the one line must contain)
TABLE = [
    # the command line itself
    ([], 2, "give a command"),
    (["bogus"], 2, "invalid choice: 'bogus'"),
    (["--bogus"], 2, "unrecognized arguments: --bogus"),
    # demo
    (["demo", "--only", "nope"], 2, "nope"),
    (["demo", "--bogus"], 2, "unrecognized arguments"),
    (["demo", "--json", "."], 2, "is a directory"),
    (["demo", "--html", "a_file/x.html"], 2, "not a directory"),
    # inspect: target, call options, own options, outputs
    (["inspect"], 2, "required: MODULE:FUNCTION"),
    (["inspect", "no_colon"], 2, "expected module:function"),
    (["inspect", "no_such_mod_xyz:f"], 2, "no_such_mod_xyz"),
    (["inspect", "bm_prog.py:nope"], 2, "has no attribute 'nope'"),
    (["inspect", "bm_prog.py:NOT_A_FUNCTION"], 2, "not a function"),
    (["inspect", "bm_exits.py:f"], 2, "called sys.exit(5) at import"),
    (["inspect", "bm_exits:f"], 2, "called sys.exit(5) at import"),
    (["inspect", "bm_multiline.py:f"], 2, "raised RuntimeError: first line second line"),
    (["inspect", "bm_prog.py:f", "--budget", "nan"], 2, "argument --budget: expected a positive number"),
    (["inspect", "bm_prog.py:f", "--budget", "inf"], 2, "argument --budget"),
    (["inspect", "bm_prog.py:f", "--budget", "-1"], 2, "argument --budget"),
    (["inspect", "bm_prog.py:f", "--budget", "x"], 2, "argument --budget"),
    (["inspect", "bm_prog.py:f", "--seed", "-1"], 2, "argument --seed: must be >= 0"),
    (["inspect", "bm_prog.py:f", "--seed", "1.5"], 2, "argument --seed"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[1,,2]"], 2, "empty dimension"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[3,]"], 2, "empty dimension"),
    (["inspect", "bm_prog.py:f", "--arg", "q9[2]"], 2, "unknown dtype 'q9'"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[[2]"], 2, "does not parse"),
    (["inspect", "bm_prog.py:f", "--arg", "{[1]: 2}"], 2, "unhashable type: 'list'"),
    (["inspect", "bm_prog.py:f", "--arg", DEEP], 2, "nested more than 100 levels"),
    (["inspect", "bm_prog.py:f", f"--arg={DEEP_MINUS}"], 2, "nested more than 100 levels"),
    (["inspect", "bm_prog.py:f", "--arg", "1" * 200_000], 2, "more than the 100,000 accepted"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[3]", "--static", "n={[1]: 2}"], 2, "unhashable type: 'list'"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[3]", "--static", "n=[1]"], 2, "unhashable; pass a tuple"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[3]", "--static", f"n={DEEP}"], 2, "nested more than 100"),
    (["inspect", "bm_prog.py:f", "--arg", "f32[3]", "--static", "oops"], 2, "expected name=value"),
    (["inspect", "bm_prog.py:f", "--args-from", "bm_prog.py:exits"], 2, "called sys.exit(4)"),
    (["inspect", "bm_prog.py:f", "--args-from", "bm_prog.py:f", "--arg", "3"], 2, "either --arg or --args-from"),
    (["inspect", "bm_prog.py:f", "--dump", "a_file"], 2, "--dump a_file"),
    (["inspect", "bm_prog.py:f", "--json", "a_file/r.json"], 2, "not a directory"),
    # compare
    (["compare"], 2, "nothing to compare"),
    (["compare", "bm_exits.py:f", "--arg", "3"], 2, "called sys.exit(5) at import"),
    (["compare", "bm_prog.py:f", "--calls", "0"], 2, "argument --calls: must be >= 1"),
    (["compare", "bm_prog.py:f", "--calls", "x"], 2, "argument --calls"),
    (["compare", "bm_prog.py:f", "--budget", "nan"], 2, "argument --budget"),
    (["compare", "bm_prog.py:f", "--min-samples", "0"], 2, "argument --min-samples"),
    (["compare", "bm_prog.py:f", "--seed", "-3"], 2, "argument --seed"),
    (["compare", "bm_prog.py:f", "--arg", "{[1]: 2}"], 2, "unhashable"),
    (["compare", "bm_prog.py:f", "--arg", DEEP], 2, "nested more than 100"),
    (["compare", "bm_prog.py:f", "--arg", "f32[3]", "--static", "n={1: {[2]: 3}}"], 2, "unhashable"),
    (["compare", "bm_prog.py:f", "--arg", "f32[3]", "--reference", "nope", *CALL], 2, "--reference 'nope'"),
    (["compare", "--variant", "novalue", "--arg", "3"], 2, "novalue"),
    (["compare", "--inner", "bm_prog.py:f", "--arg", "3"], 2, "--inner"),
    (["compare", "bm_prog.py:f", "--html", "."], 2, "is a directory"),
    # scale
    (["scale", "bm_prog.py:make", "--sizes", "4,8,,"], 2, "expected comma-separated integers"),
    (["scale", "bm_prog.py:make", "--sizes", "4,,8"], 2, "expected comma-separated integers"),
    (["scale", "bm_prog.py:make", "--sizes", "4"], 2, "two distinct positive sizes"),
    (["scale", "bm_prog.py:make", "--sizes", "0,4"], 2, "two distinct positive sizes"),
    (["scale", "bm_prog.py:make", "--sizes", "x"], 2, "expected comma-separated integers"),
    (["scale", "bm_prog.py:make", "--repeats", "0"], 2, "argument --repeats: must be >= 1"),
    (["scale", "bm_prog.py:make", "--budget", "nan"], 2, "argument --budget"),
    (["scale", "bm_exits.py:f", "--sizes", "4,8"], 2, "called sys.exit(5) at import"),
    (["scale", "bm_prog.py:make", "--sizes", "4,8", "--plot", "a_file/p"], 2, "not a directory"),
    # watch
    (["watch"], 2, "give a script"),
    (["watch", "missing.py"], 2, "missing.py"),
    (["watch", "-m", "no_such_mod_xyz"], 2, "no_such_mod_xyz"),
    (["watch", "--max-compiles", "-1", "bm_prog.py"], 2, "--max-compiles"),
    (["watch", "--max-compiles", "x", "bm_prog.py"], 2, "argument --max-compiles"),
    (["watch", "--events", "a_file/e.jsonl", "bm_prog.py"], 2, "not a directory"),
    # lint
    (["lint", "missing_dir_xyz"], 2, "missing_dir_xyz"),
    (["lint", "--select", "ZZ999", "bm_prog.py"], 2, "ZZ999"),
    (["lint", "--format", "xml", "bm_prog.py"], 2, "argument --format: invalid choice"),
    (["lint", "--jobs", "x", "bm_prog.py"], 2, "argument --jobs"),
    (["lint", "--config", "a_file", "--no-config", "bm_prog.py"], 2, "mutually exclusive"),
    (["lint", "-o", ".", "bm_prog.py"], 2, "is a directory"),
    # rules
    (["rules", "ZZ999"], 2, "ZZ999"),
    # report
    (["report"], 2, "required: RESULT.json"),
    (["report", "missing.json"], 2, "missing.json"),
    (["report", "r.json"], 2, "r.json"),
    (["report", "r.json", "-f", "xml"], 2, "argument --format/-f: invalid choice"),
]


def _run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse errors exit from inside parse_args
        return int(e.code or 0)


@pytest.mark.parametrize("argv,code,words", TABLE, ids=lambda v: " ".join(v)[:60] if isinstance(v, list) else None)
def test_bad_input_is_one_line_and_a_documented_exit_code(tree, capsys, argv, code, words):
    got = _run(argv)
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err[:2000]
    assert lines[0].startswith("jitscope: ") and words in lines[0], lines[0][:500]
    assert got == code, lines
    assert len(lines[0]) < 1000  # a 200,000-character argument is not echoed back
    assert out.out == ""


def test_a_tracing_failure_is_one_line_and_exit_1(tree, capsys):
    assert _run(["inspect", "bm_branch.py:f", "--arg", "f32[3]", "--no-run", "--no-numerics"]) == 1
    out = capsys.readouterr()
    (line,) = out.err.strip().splitlines()
    assert line.startswith("jitscope: tracing bm_branch.py:f failed: ") and "Traceback" not in line
    assert "f" in out.out  # the result itself is still shown


def test_usage_is_shown_with_help_only(capsys):
    assert _run(["inspect", "--help"]) == 0
    assert "usage: jitscope inspect" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["inspect", "bm_exits:f", "--arg", "3"], ["compare", "bm_exits:f", "--arg", "3"]])
def test_sys_exit_at_import_in_a_real_process(cli, tree, command):
    """The issue's report: inspect/compare on a module calling sys.exit(5) exited 5 with no message."""
    p = cli(*command, cwd=tree, env={"PYTHONPATH": str(tree)})
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip() == ("jitscope: importing module 'bm_exits' called sys.exit(5) at import; guard the "
                                "script part of the module with `if __name__ == \"__main__\":`")


def test_argparse_error_in_a_real_process(cli):
    p = cli("scale", "x:make", "--repeats", "zero")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip() == ("jitscope: argument --repeats: expected an integer >= 1, got 'zero' "
                                "(see 'jitscope scale --help')")
