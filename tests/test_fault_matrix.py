"""Fault injection across every command: no output may overwrite an input, and every bad input is one line.

Two tables, run for real through the CLI:

* output-equals-input: each output option of each command pointed at a file the same run reads
  (the watched script, the target or ``--args-from`` module, a linted file, the result being
  re-rendered, another output). Each must exit 2 with one ``jitscope:`` line, before anything runs,
  and leave the input byte-for-byte intact.
* bad input: malformed options and specs for every command. Each must exit 2 with exactly one
  stderr line, ``jitscope: <cause>``, and no traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PROG = "import jax\nimport jax.numpy as jnp\n\nf = jax.jit(lambda x: x * 2)\nprint(f(jnp.ones(3)))\n"
MOD = '''import jax.numpy as jnp


def f(x):
    return jnp.sin(x) * 2


def make(n):
    return f, (jnp.ones(n),)


def args():
    return (jnp.ones(3),), {}
'''
RESULT = (Path(__file__).resolve().parent / "gold" / "lint.json").read_text()


@pytest.fixture
def work(tmp_path):
    (tmp_path / "prog.py").write_text(PROG)
    (tmp_path / "fmod.py").write_text(MOD)
    (tmp_path / "amod.py").write_text(MOD)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(PROG)
    (tmp_path / "r.json").write_text(RESULT)
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(5)\n")
    (tmp_path / "pyproject.toml").write_text("[tool.jitscope]\nselect = ['JS1']\n")
    (tmp_path / "run.jsonl").write_text(_watch_run(tmp_path))
    return tmp_path


def _watch_run(where: Path) -> str:
    """An events file of one compile of ``fmod.f`` (defined in fmod.py, called from prog.py)."""
    import json

    from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location

    event = CompileEvent(function="f", definition=Location(str(where / "fmod.py"), 4),
                         call_site=Location(str(where / "prog.py"), 5), module="fmod",
                         signature=ArgSignature((LeafSpec("x", (3,), "float32"),), {}, "x: PyTreeDef(*)", ()))
    return json.dumps(event.to_dict()) + "\n"


# (argv, the input it must not overwrite, the words the refusal names it by)
OVERWRITES = [
    (["watch", "--events", "prog.py", "prog.py"], "prog.py", "the watched program"),
    (["watch", "--json", "./prog.py", "prog.py"], "prog.py", "the watched program"),
    (["watch", "--html", "prog.py", "prog.py"], "prog.py", "the watched program"),
    (["watch", "--timeline", "prog.py", "prog.py"], "prog.py", "the watched program"),
    (["watch", "--json", "pkg/lib.py", "-m", "pkg.lib"], "pkg/lib.py", "the watched program"),
    (["watch", "--json", "o.json", "--timeline", "o.json", "prog.py"], None, "also given to --"),
    (["inspect", "fmod:f", "--arg", "f32[3]", "--json", "fmod.py"], "fmod.py", "the inspected module"),
    (["inspect", "fmod:f", "--arg", "f32[3]", "--html", "fmod.py"], "fmod.py", "the inspected module"),
    (["inspect", "fmod:f", "--args-from", "amod:args", "--json", "amod.py"], "amod.py", "the --args-from module"),
    (["inspect", "./fmod.py:f", "--arg", "f32[3]", "--json", "fmod.py"], "fmod.py", "the inspected module"),
    (["compare", "fmod:f", "--arg", "f32[3]", "--json", "fmod.py"], "fmod.py", "a compared module"),
    (["compare", "fmod:f", "--variant", "g=amod:f", "--arg", "f32[3]", "--html", "amod.py"], "amod.py",
     "a compared module"),
    (["compare", "fmod:f", "--args-from", "amod:args", "--json", "amod.py"], "amod.py", "the --args-from module"),
    (["scale", "fmod:make", "--sizes", "2,4", "--json", "fmod.py"], "fmod.py", "the scaled module"),
    (["scale", "fmod:make", "--sizes", "2,4", "--plot", "fmod", "--json", "fmod.png"], None, "also given to"),
    (["lint", "prog.py", "-o", "prog.py"], "prog.py", "a linted file"),
    (["lint", "prog.py", "--json", "prog.py"], "prog.py", "a linted file"),
    (["lint", ".", "--html", "pkg/lib.py"], "pkg/lib.py", "a linted file"),
    (["lint", "prog.py", "--config", "pyproject.toml", "--json", "pyproject.toml"], "pyproject.toml",
     "the configuration"),
    (["report", "r.json", "-o", "r.json"], "r.json", "the result being rendered"),
    (["report", "r.json", "-o", "./r.json", "-f", "json"], "r.json", "the result being rendered"),
    # outputs onto the source files a run recorded (issue #23 item 2): the definition file, the call site
    (["warmup", "run.jsonl", "-o", "fmod.py"], "fmod.py", "a source file the watch run recorded"),
    (["warmup", "run.jsonl", "-o", "prog.py"], "prog.py", "a source file the watch run recorded"),
    (["warmup", "run.jsonl", "-o", "run.jsonl"], "run.jsonl", "the watch run"),
    (["diff", "run.jsonl", "run.jsonl", "--json", "fmod.py"], "fmod.py", "a source file a compared run recorded"),
    (["merge", "run.jsonl", "--timeline", "prog.py"], "prog.py", "a source file a merged file recorded"),
]


@pytest.mark.parametrize("argv,victim,named", OVERWRITES, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_no_output_overwrites_an_input(cli, work, argv, victim, named):
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    p = cli(*argv, cwd=work)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: ") and named in lines[0], p.stderr
    assert p.stdout == ""  # refused before anything ran
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert after == before  # nothing overwritten, nothing created
    if victim:
        assert f"is {named}; refusing" in lines[0]


def test_an_output_through_a_symlink_to_the_input_is_refused(cli, work):
    (work / "alias.json").symlink_to(work / "prog.py")
    p = cli("watch", "--json", "alias.json", "prog.py", cwd=work)
    assert p.returncode == 2 and "is the watched program" in p.stderr
    assert (work / "prog.py").read_text() == PROG


BAD = [
    (["compare", "fmod:f", "--arg", "f32[3]", "--seed", "-1"], "--seed: -1 is below the minimum 0"),
    (["inspect", "fmod:f", "--arg", "f32[3]", "--budget", "nan"], "--budget: nan is not a positive number"),
    (["inspect", "fmod:f", "--arg", "f32[3]", "--budget", "inf"], "--budget: inf is not a positive number"),
    (["compare", "fmod:f", "--arg", "f32[3]", "--budget", "0"], "--budget: 0 is not a positive number"),
    (["compare", "fmod:f", "--arg", "f32[3]", "--calls", "0"], "--calls: 0 is below the minimum 1"),
    (["compare", "fmod:f", "--arg", "f32[3]", "--min-samples", "x"], "--min-samples: 'x' is not an integer"),
    (["scale", "fmod:make", "--sizes", "4,8,,"], "--sizes '4,8,,': expected comma-separated integers"),
    (["scale", "fmod:make", "--sizes", "4,8", "--repeats", "0"], "--repeats: 0 is below the minimum 1"),
    (["watch", "--max-compiles", "-1", "prog.py"], "--max-compiles: -1 is below the minimum 0"),
    (["lint", "prog.py", "--jobs", "0"], "--jobs/-j: 0 is below the minimum 1"),
    (["demo", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["inspect"], "the following arguments are required"),
    (["no-such-command"], "invalid choice: 'no-such-command'"),
    (["report", "missing.json"], "missing.json"),
    (["report", "prog.py"], "prog.py"),
    (["lint", "no/such/path.py"], "no/such/path.py"),
    (["inspect", "fmod:f", "--arg", "f32[1,,2]"], "empty dimension"),
    (["inspect", "fmod:f", "--arg", "{[1]: 2}"], "unhashable"),
    (["inspect", "fmod:f", "--arg", "[" * 20000 + "]" * 20000], "nested more than 100 levels deep"),
    (["inspect", "fmod:f", "--static", "n=" + "-" * 20000 + "1"], "nested more than 100 levels deep"),
    (["compare", "fmod:f", "--arg", "f32[3]", "--static", "n=[1, 2]"], "unhashable"),
    (["inspect", "exits:f", "--arg", "f32[3]"], "called sys.exit(5) at import"),
    (["compare", "exits:f", "--arg", "f32[3]"], "called sys.exit(5) at import"),
    ([], "give a command"),
]


@pytest.mark.parametrize("argv,needle", BAD, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_bad_input_is_one_line_and_exit_2(cli, work, argv, needle):
    p = cli(*argv, cwd=work)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("jitscope: ") and needle in lines[0], lines[0]
    assert "Traceback" not in p.stderr and "usage:" not in p.stderr


def test_usage_block_only_with_help(cli):
    p = cli("watch", "--help")
    assert p.returncode == 0 and "usage: jitscope watch" in p.stdout


def test_dev_null_takes_every_output_and_stays_a_device(cli, work):
    import stat

    p = cli("watch", "-q", "--json", "/dev/null", "--html", "/dev/null", "--events", "/dev/null",
            "--timeline", "/dev/null", "prog.py", cwd=work)
    assert p.returncode == 0, p.stderr
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)  # written into, never replaced by a file


def test_json_through_a_symlink_writes_the_target_and_keeps_the_link(cli, work):
    (work / "real.json").write_text("")
    (work / "link.json").symlink_to(work / "real.json")
    p = cli("lint", "prog.py", "--exit-zero", "--json", "link.json", cwd=work)
    assert p.returncode == 0, p.stderr
    assert (work / "link.json").is_symlink()
    assert '"kind": "lint"' in (work / "real.json").read_text()
