"""The fault matrix as a property of the command line (issue #23 item 7): every subcommand and every option
that names a path are read from the argument parser itself, so a new command or option is covered (or this
test fails until it is declared) without anyone adding a row.

Each path option is declared as what it is (``cli/_outputs.py``): ``Output`` (form file, dir or prefix) or
``Input`` (with the ``kind`` of file it reads). From those declarations:

1. every string-valued option is a declared path or listed in ``NOT_PATHS`` (a new path option must be
   declared, which puts it under the one output guard and under every row below);
2. the guard, in-process (``guard_parsed``, what ``cli.main`` runs before any command), for EVERY output
   of EVERY command: onto each file each input of the command reads (the run's recorded sources too), onto
   a link planted to it, onto another output, onto a directory, under a regular file, onto a FIFO without a
   reader, into a read-only file system, and a non-UTF-8 name;
3. bad data inputs, in-process through ``cli.main`` for EVERY input of kind run/result (diff, warmup, merge,
   report): empty, truncated, wrong-type, oversized (a sparse file), ``/dev/zero``, ``/dev/null``, a
   directory, missing, non-UTF-8 bytes, and a FIFO with a writer (read, as ``cat`` would);
4. a full disk at the end of the run (``/dev/full``) for EVERY file output: in-process for the commands
   that run no user code, one real subprocess per measuring command with all its file outputs at once;
5. cheap once-per-kind rows as real subprocesses: a non-UTF-8 output name printed on stdout; SIGTERM during
   a trace and Ctrl-C during a lowering under watch (a signal during XLA's compile itself is
   tests/test_watch_endings.py::test_a_signal_during_an_xla_compile_never_crashes_the_process).

Why this product: rows 2-4 are cheap in-process (the guard and the readers run before anything is
measured), so every option meets every fault there; the rows that need a real run (a program, a compile,
a signal) run once per command or once per fault kind, which keeps the whole file near a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

from jitscope.cli import COMMANDS, build_parser, main
from jitscope.cli._outputs import Input, Output, PathOption, guard_parsed
from jitscope.errors import UsageError
from jitscope.results.watch_run import recorded_sources

PARSER = build_parser()
SUB = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)).choices

# String-valued options that name no file (each one checked to exist: a stale row fails too).
NOT_PATHS = {("compare", "reference"), ("compare", "arg"), ("compare", "static"), ("inspect", "arg"),
             ("inspect", "static"), ("demo", "only"), ("diff", "fail_on"), ("scale", "sizes"), ("rules", "code")}

MOD = '''import jax.numpy as jnp


def f(x):
    return jnp.sin(x) * 2


def make(n):
    return f, (jnp.ones(n),)


def args():
    return (jnp.ones(3),), {}
'''
PROG = "import jax\nimport jax.numpy as jnp\nprint(jax.jit(lambda x: x * 2)(jnp.ones(3)))\n"


def _actions(cmd: str) -> list[argparse.Action]:
    return [a for a in SUB[cmd]._actions if not isinstance(a, argparse._HelpAction)]


def _outputs(cmd: str) -> list[Output]:
    return [a for a in _actions(cmd) if isinstance(a, Output)]


def _inputs(cmd: str) -> list[Input]:
    return [a for a in _actions(cmd) if isinstance(a, Input)]


def test_every_command_is_in_the_parser_and_every_string_option_is_declared():
    assert sorted(SUB) == sorted(COMMANDS)
    string_valued = (argparse._StoreAction, argparse._AppendAction, argparse._ExtendAction)
    found = set()
    for cmd in SUB:
        for a in _actions(cmd):
            if isinstance(a, PathOption) or not isinstance(a, string_valued):
                continue
            if a.type not in (None, str) or a.choices is not None:
                continue  # a number, a code list, a choice: not a path
            found.add((cmd, a.dest))
    undeclared = found - NOT_PATHS
    assert not undeclared, f"declare these as Output/Input (cli/_outputs.py) or list them in NOT_PATHS: {undeclared}"
    assert not NOT_PATHS - found, f"stale NOT_PATHS rows: {NOT_PATHS - found}"


# --- valid samples of each input kind, from which each command's base argv is built -----------------

@pytest.fixture
def world(tmp_path: Path) -> Path:
    from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location

    (tmp_path / "fmod.py").write_text(MOD)
    (tmp_path / "prog.py").write_text(PROG)
    (tmp_path / "pyproject.toml").write_text("[tool.jitscope]\nselect = ['JS1']\n")
    event = CompileEvent(function="f", definition=Location(str(tmp_path / "fmod.py"), 4),
                         call_site=Location(str(tmp_path / "prog.py"), 3), module="fmod", process_index=0, pid=5,
                         signature=ArgSignature((LeafSpec("x", (3,), "float32"),), {}, "x: PyTreeDef(*)", ()))
    header = {"type": "run", "jitscope": "test", "pid": 5, "started_at": 0.0}
    (tmp_path / "run.p0.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(event.to_dict()) + "\n")
    (tmp_path / "r.json").write_text((Path(__file__).resolve().parent / "gold" / "lint.json").read_text())
    (tmp_path / "out").mkdir()
    from jitscope.model import TracedFunction, TracedParameter, TraceEvidence

    TraceEvidence([TracedFunction("fmod", "f", str(tmp_path / "fmod.py"), 4, [TracedParameter("x", "abstract")],
                                  entry="f", transform="jax.jit")]).save(tmp_path / "ev.json")
    return tmp_path


def _sample(kind: str, w: Path) -> str:
    return {"module": f"{w}/fmod.py:f", "script": str(w / "prog.py"), "source": str(w / "prog.py"),
            "config": str(w / "pyproject.toml"), "run": str(w / "run.p0.jsonl"), "result": str(w / "r.json"),
            "evidence": str(w / "ev.json")}[kind]


def _argv(cmd: str, w: Path, options: list[str] | None = None) -> list[str]:
    """``cmd`` with every input given a valid sample (options first, positionals last) and ``options``."""
    opts, positionals = list(options or []), []
    for a in _inputs(cmd):
        value = _sample(a.kind, w)
        if a.dest == "variant":
            value = f"g={value}"
        if a.dest == "module":
            continue  # watch -m and a script are alternatives: the script is given
        if a.option_strings:
            if a.option_strings[0] not in opts:
                opts += [a.option_strings[0], value]
        else:
            positionals.append(value)
    for a in _outputs(cmd):  # a required output (warmup -o) gets a harmless default
        if a.required and a.option_strings[0] not in opts:
            opts += [a.option_strings[0], str(w / "out" / f"{cmd}-{a.dest}.out")]
    return [cmd, *opts, *positionals]


def _guard(argv: list[str]) -> str | None:
    """The guard's verdict: None (accepted) or its one-line refusal."""
    args = PARSER.parse_args(argv)
    try:
        guard_parsed(PARSER, args)
    except UsageError as e:
        text = str(e)
        assert "\n" not in text
        return text
    return None


def _output_paths(out: Output, target: str) -> tuple[list[str], str]:
    """The option's argv and the file it writes for a wanted path ``target`` (a prefix output adds its suffix)."""
    if out.form == "prefix":
        suffix = out.suffixes[0]
        return [out.option_strings[0], target[:-len(suffix)] if target.endswith(suffix) else target], target
    return [out.option_strings[0], target], target


OUTPUT_CASES = [(cmd, a.dest) for cmd in SUB for a in _outputs(cmd)]


@pytest.mark.parametrize("cmd,dest", OUTPUT_CASES, ids=lambda v: str(v))
def test_the_guard_refuses_every_output_onto_what_the_command_reads(world, cmd, dest):
    out = next(a for a in _outputs(cmd) if a.dest == dest)
    base = PARSER.parse_args(_argv(cmd, world))
    read = [(a, f) for a in _inputs(cmd) for f in a.paths(getattr(base, a.dest), base)]
    victims = sorted({os.path.realpath(f) for _, f in read}
                     | {os.path.realpath(s) for a, f in read if a.recorded for s in recorded_sources(f)})
    assert victims or cmd in ("demo", "doctor")  # they read no file
    if any(a.kind == "run" for a, _ in read):  # what the sample run recorded: its definition and call site
        assert {str(world / "fmod.py"), str(world / "prog.py")} <= set(victims)
    before = {p: Path(p).read_bytes() for p in victims}
    for victim in victims:
        if out.form == "prefix" and not victim.endswith(out.suffixes[0]):
            continue  # PREFIX.png can only be a .png
        option, _ = _output_paths(out, victim)
        refusal = _guard(_argv(cmd, world, option))
        assert refusal and "refusing to" in refusal, (victim, refusal)
        link = world / "out" / f"link-{Path(victim).name}{out.suffixes[0] if out.form == 'prefix' else ''}"
        link.unlink(missing_ok=True)
        link.symlink_to(victim)
        option, _ = _output_paths(out, str(link))
        refusal = _guard(_argv(cmd, world, option))
        assert refusal and "refusing to" in refusal, (link, refusal)
    assert {p: Path(p).read_bytes() for p in victims} == before


@pytest.mark.parametrize("cmd,dest", OUTPUT_CASES, ids=lambda v: str(v))
def test_the_guard_refuses_every_output_it_cannot_write(world, cmd, dest, read_only_dir):
    out = next(a for a in _outputs(cmd) if a.dest == dest)
    others = [a for a in _outputs(cmd) if a is not out and a.form == "file"]
    suffix = out.suffixes[0] if out.form == "prefix" else ""
    if out.form == "file" and others:  # two outputs, one file
        same = str(world / "out" / "same.out")
        refusal = _guard(_argv(cmd, world, [*_output_paths(out, same)[0], others[0].option_strings[0], same]))
        assert refusal and "also given to" in refusal
    if out.form != "dir":
        (world / "out" / f"adir{suffix}").mkdir()
        (world / "out" / f"afile{suffix}").write_text("")
        fifo = world / "out" / f"fifo{suffix}"
        os.mkfifo(fifo)
        cases = {"is a directory": world / "out" / f"adir{suffix}",
                 "not a directory": world / "out" / f"afile{suffix}" / f"x{suffix}",
                 "cannot write": fifo}  # no reader: opening it would block the run
        if read_only_dir is not None:
            cases["read-only"] = read_only_dir / f"x{suffix}"
        for words, path in cases.items():
            refusal = _guard(_argv(cmd, world, _output_paths(out, str(path))[0]))
            assert refusal and (words in refusal.lower() or "cannot write" in refusal), (words, refusal)
    # a name of undecodable bytes is a name like any other: accepted, and nothing is created by the check
    odd = os.fsdecode(b"odd-\xff") + suffix
    assert _guard(_argv(cmd, world, _output_paths(out, str(world / "out" / odd))[0])) is None
    assert not (world / "out" / odd).exists()


@pytest.fixture(scope="module")
def read_only_dir(tmp_path_factory):
    """A read-only tmpfs (root writes anywhere else); None where the suite may not mount one."""
    where = tmp_path_factory.mktemp("ro")
    if os.geteuid() != 0:
        yield None
        return
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=16k", "tmpfs", str(where)], capture_output=True)
    if r.returncode != 0:
        yield None
        return
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


# --- bad data inputs ---------------------------------------------------------------------------------

DATA_INPUTS = [(cmd, a.dest) for cmd in SUB for a in _inputs(cmd) if a.kind in ("run", "result")]
DATA_FAULTS = ["empty", "truncated", "wrong-type", "oversized", "/dev/zero", "/dev/null", "directory", "missing",
               "not-utf8", "fifo"]


def _broken(world: Path, kind: str, fault: str) -> str:
    good = Path(_sample(kind, world)).read_bytes()
    path = world / "out" / f"bad.p0.{'jsonl' if kind == 'run' else 'json'}"
    if fault in ("/dev/zero", "/dev/null"):
        return fault
    if fault == "directory":
        (world / "out" / "adir").mkdir()
        return str(world / "out" / "adir")
    if fault == "missing":
        return str(world / "out" / "nope.json")
    if fault == "empty":
        path.write_bytes(b"")
    elif fault == "truncated":
        path.write_bytes(good[: len(good) // 2 - 3] if kind == "result" else good.split(b"\n")[0][:20])
    elif fault == "wrong-type":
        data = [json.loads(line) for line in good.decode().splitlines()] if kind == "run" else json.loads(good)
        if kind == "run":
            data[1]["signature"] = "not a signature"
            path.write_text("\n".join(json.dumps(d) for d in data) + "\n")
        else:
            data["findings"] = {"not": "a list"}
            path.write_text(json.dumps(data))
    elif fault == "oversized":
        with open(path, "wb") as f:
            f.truncate((1 << 30) + 1)  # sparse: refused by its size, never read
    elif fault == "not-utf8":
        path.write_bytes(b"\xff\xfe" + good)
    elif fault == "fifo":
        os.mkfifo(path)
        threading.Thread(target=lambda: path.write_bytes(good), daemon=True).start()
    return str(path)


@pytest.mark.parametrize("fault", DATA_FAULTS)
@pytest.mark.parametrize("cmd,dest", DATA_INPUTS, ids=lambda v: str(v))
def test_every_data_input_refuses_bad_files_in_one_line(world, capsys, monkeypatch, cmd, dest, fault):
    monkeypatch.chdir(world)
    inp = next(a for a in _inputs(cmd) if a.dest == dest)
    bad = _broken(world, inp.kind, fault)
    argv = _argv(cmd, world)
    good = _sample(inp.kind, world)
    argv[len(argv) - 1 - argv[::-1].index(good)] = bad  # the last occurrence: diff's run_b, or the only one
    if cmd == "diff" and dest == "run_a":
        argv[argv.index(good)] = bad
        argv[-1] = good
    code = main(argv)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("jitscope:")]
    if fault == "fifo" or (fault == "directory" and cmd == "merge"):
        assert code in (0, 2), captured.err  # read as a file would be; a directory is merge's own input form
        return
    assert code == 2, (code, captured.err)
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err


# --- a full disk at the end of the run ---------------------------------------------------------------

CHEAP = ("lint", "report", "diff", "warmup", "merge", "doctor")


@pytest.mark.parametrize("cmd,dest", [(c, d) for c, d in OUTPUT_CASES if c in CHEAP], ids=lambda v: str(v))
def test_a_full_disk_for_every_output_of_the_commands_that_run_no_program(world, capsys, monkeypatch, cmd, dest):
    monkeypatch.chdir(world)
    out = next(a for a in _outputs(cmd) if a.dest == dest)
    argv = _argv(cmd, world, [out.option_strings[0], "/dev/full"])
    if cmd == "lint":
        argv.insert(1, "--exit-zero")
    code = main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("jitscope:")]
    assert code == 2 and len(lines) == 1 and "/dev/full" in lines[0] and "No space left" in lines[0], err


MEASURING = {
    "watch": [str(FIXTURES.parent / "fixtures" / "watch_endings.py"), "thread"],
    "inspect": ["fmod.py:f", "--arg", "f32[3]", "--sample-seconds", "0.01", "--no-numerics"],
    "compare": ["fmod.py:f", "--arg", "f32[3]", "--sample-seconds", "0.01", "--min-samples", "1", "--no-phases"],
    "scale": ["fmod.py:make", "--sizes", "2,4", "--repeats", "1", "--sample-seconds", "0.01", "--no-run"],
    "demo": ["--only", "selu", "--quick", "--no-progress"],
}


@pytest.mark.parametrize("cmd", sorted(MEASURING))
def test_a_full_disk_for_every_file_output_of_a_measuring_command(world, cmd):
    assert set(MEASURING) | set(CHEAP) >= {c for c, _ in OUTPUT_CASES}, "a new command with outputs: add it here"
    files = [a.option_strings[0] for a in _outputs(cmd) if a.form == "file"]
    args = [x for o in files for x in (o, "/dev/full")]
    argv = [cmd, *args, *MEASURING[cmd]] if cmd != "watch" else [cmd, "-q", *args, *MEASURING[cmd]]
    p = run_cli(*argv, cwd=world)
    assert "Traceback" not in p.stderr, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("jitscope:") and "/dev/full" in line]
    assert lines and all("No space left" in line for line in lines), p.stderr
    if cmd == "watch":
        assert p.returncode == 0 and len(lines) <= len(files)  # the program's own exit; one line per output
    else:
        assert p.returncode == 2 and len(lines) == 1  # the first refused write ends the command


# --- once per fault kind, for real ---------------------------------------------------------------------

def test_a_non_utf8_output_name_is_printed_escaped(world):
    name = os.fsdecode(b"w-\xff.py")
    p = subprocess.run([sys.executable, "-m", "jitscope", "warmup", str(world / "run.p0.jsonl"), "-o", name],
                       cwd=world, capture_output=True, env={**os.environ, "JAX_PLATFORMS": "cpu", "LC_ALL": "C.UTF-8",
                                                          "PYTHONIOENCODING": "utf-8"})
    assert p.returncode == 0 and b"Traceback" not in p.stderr, p.stderr
    assert b"w-\\udcff.py" in p.stdout and (world / name).exists()


SLOW_TRACE = """\
import time
import jax, jax.numpy as jnp


def body(x):
    time.sleep(float(__import__("os").environ.get("TRACE_SLEEP", "0")))   # a slow trace
    for i in range(1500):                                                   # a slow lowering
        x = jnp.sin(x) * 1.0001 + i
    return x


jax.jit(body)(jnp.ones(4)).block_until_ready()
print("not reached", flush=True)
"""


@pytest.mark.parametrize("sig,phase,code", [("SIGTERM", "trace", 143), ("SIGINT", "lower", 130)])
def test_a_signal_in_a_phase_of_a_compile_ends_watch_cleanly(world, sig, phase, code):
    (world / "slow.py").write_text(SLOW_TRACE)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "TRACE_SLEEP": "3" if phase == "trace" else "0"}
    p = subprocess.Popen([sys.executable, "-m", "jitscope", "watch", "-q", "--stall-after", "0.2", "--json",
                          str(world / "r.json"), "--events", str(world / "e.jsonl"), "slow.py"], cwd=world, env=env,
                         text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stderr is not None
    seen = []
    for line in p.stderr:  # the watchdog names the phase while it runs
        seen.append(line)
        # on an idle machine the lowering can end before the first report: its compile is the same fault
        if any(f"stall: {ph} of {'body' if ph == 'trace' else 'jit(body)'}" in line
               for ph in ((phase,) if phase == "trace" else ("lower", "compile"))):
            break
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=300)
    err = "".join(seen) + err
    assert p.returncode == code, err[-3000:]
    assert "Fatal Python error" not in err and "not reached" not in out
    assert json.loads((world / "r.json").read_text())["exit_code"] == code
    assert json.loads((world / "e.jsonl").read_text().splitlines()[0])["type"] == "run"
