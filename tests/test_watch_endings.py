"""What `jitscope watch` writes on each way a program can end (docs/watch.md, "What is written on each ending").

Real subprocesses of the CLI on tests/fixtures/watch_endings.py: the exit status, the events file and
the --json result are checked for every ending jitscope can observe.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, compile_lines

PROG = str(FIXTURES / "watch_endings.py")


@pytest.mark.parametrize("mode,code,compiles", [
    ("term", 143, 1), ("hup", 129, 1),              # unwound: results written, status 128 + signal
    ("closeout", 0, 1), ("closeerr", 0, 1),          # the summary finds a stream again
    ("thread", 0, 2), ("atexit", 0, 2),              # as Python: threads joined, then atexit, watched
    ("int-first", 130, 0),                           # Ctrl-C before any compile: still a result
])
def test_every_ending_writes_events_and_result(cli, tmp_path, mode, code, compiles):
    ev, js = tmp_path / "e.jsonl", tmp_path / "r.json"
    p = cli("watch", "--events", str(ev), "--json", str(js), PROG, mode, cwd=tmp_path)
    assert p.returncode == code, p.stderr
    events = [json.loads(line) for line in compile_lines(ev)]
    result = json.loads(js.read_text())
    assert len(events) == len(result["events"]) == compiles
    assert result["exit_code"] == code
    assert "Traceback" not in p.stderr or mode == "int-first"
    if mode in ("term", "hup"):
        assert f"terminated by SIG{mode.upper()}" in p.stderr and "not reached" not in p.stdout
    if mode == "closeerr":
        assert "Compiles per function" in p.stderr  # the summary still reached the terminal


def test_a_forked_child_writes_its_own_files_never_the_parents(cli, tmp_path):
    ev, js = tmp_path / "e.jsonl", tmp_path / "r.json"
    p = cli("watch", "-q", "--events", str(ev), "--json", str(js), PROG, "fork", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    parent = json.loads(js.read_text())
    assert len(parent["events"]) == 2 and len({e["pid"] for e in parent["events"]}) == 1
    children = [f for f in tmp_path.glob("e.*.jsonl")]
    assert len(children) == 1  # e.<pid>-<host>-<random>.jsonl: the child's own (empty: it compiled nothing)
    token = children[0].name.split(".")[1]
    child_pid = int(token.split("-")[0])
    assert child_pid != parent["events"][0]["pid"]
    assert (tmp_path / f"r.{token}.json").exists()
    assert f"forked child {child_pid}" in p.stderr
    assert len(compile_lines(ev)) == 2  # the parent's events file holds the parent's events only


def test_jitscope_frames_never_appear_in_the_users_traceback(cli, tmp_path):
    """Ctrl-C while jit traces the user's function (the hook that records compiles is on that path)."""
    prog = tmp_path / "boom.py"
    prog.write_text("import os, signal, time\nimport jax\n\n@jax.jit\ndef f(x):\n"
                    "    os.kill(os.getpid(), signal.SIGINT)\n    time.sleep(2)\n    return x\n\nf(1.0)\n")
    p = cli("watch", "-q", str(prog), cwd=tmp_path)
    assert p.returncode == 130
    tb = p.stderr.split("KeyboardInterrupt")[0]
    import jitscope

    here = str(Path(jitscope.__file__).parent)
    assert "boom.py" in tb and here not in tb and "runpy" not in tb


def test_jitscope_frames_in_the_middle_of_a_traceback_are_removed(cli, tmp_path):
    """no_recompile raises from jitscope's listener, called by JAX inside the user's call: the frames
    between the user's line and the raise (jax.monitoring -> jitscope's collector) are jitscope's own."""
    prog = tmp_path / "guard.py"
    prog.write_text("import jax, jax.numpy as jnp, jitscope\nf = jax.jit(lambda x: x * 2)\nf(jnp.ones(2))\n"
                    "with jitscope.no_recompile():\n    f(jnp.ones(3))\n")
    p = cli("watch", "-q", str(prog), cwd=tmp_path)
    assert p.returncode == 1 and "RecompileError: no_recompile:" in p.stderr
    import jitscope

    tb = p.stderr.split("RecompileError")[0]
    assert "guard.py\", line 5" in tb and str(Path(jitscope.__file__).parent) not in tb



def test_a_pipe_closed_by_its_reader_still_gets_every_output(tmp_path):
    # `jitscope watch prog.py 2>&1 | head -1`: the program dies of BrokenPipeError on its next print and
    # jitscope's own traceback print fails too; the --json and --events must still be written.
    import os
    import subprocess
    import sys

    prog = tmp_path / "chatty.py"
    prog.write_text("import time, jax, jax.numpy as jnp\njax.jit(lambda x: x * 2)(jnp.ones(3))\n"
                    "for i in range(50):\n    print('line', i, flush=True)\n    time.sleep(0.05)\n")
    out, events = tmp_path / "r.json", tmp_path / "e.jsonl"
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    p = subprocess.Popen([sys.executable, "-m", "jitscope", "watch", "--json", str(out), "--events", str(events),
                          str(prog)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path, env=env)
    assert p.stdout is not None
    assert p.stdout.readline().startswith(b"line 0")
    p.stdout.close()  # the reader goes away, as `head -1` does
    p.wait(timeout=120)
    result = json.loads(out.read_text())
    assert result["exit_code"] == 1 and len(result["events"]) == 1
    assert len(compile_lines(events)) == 1


LONG_COMPILE = """\
import jax, jax.numpy as jnp


def body(x):
    for i in range(3000):          # a compile of several seconds
        x = jnp.sin(x) * 1.0001 + i
    return x


jax.jit(body)(jnp.ones(4)).block_until_ready()
print("not reached", flush=True)
"""


@pytest.mark.parametrize("sig,code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_during_an_xla_compile_never_crashes_the_process(tmp_path, sig, code):
    """XLA checks for Python signals while it compiles; an exception raised there (watch's Terminated, Python's
    KeyboardInterrupt) returned from the compile while XLA kept compiling over freed objects: a segfault
    (exit 139) after the compile. The signal now takes effect when the compile returns."""
    import os
    import signal
    import subprocess
    import sys

    (tmp_path / "long.py").write_text(LONG_COMPILE)
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    p = subprocess.Popen([sys.executable, "-m", "jitscope", "watch", "-q", "--stall-after", "0.3", "--json",
                          str(tmp_path / "r.json"), "long.py"], cwd=tmp_path, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stderr is not None
    seen = []
    for line in p.stderr:  # the watchdog names the compile while it runs: the signal lands inside XLA
        seen.append(line)
        if "stall: compile of jit(body)" in line:
            break
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=300)
    err = "".join(seen) + err
    assert p.returncode == code, err[-3000:]
    assert "Fatal Python error" not in err and "not reached" not in out
    assert f"{'Ctrl-C' if sig == 'SIGINT' else sig} during an XLA compile" in err
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["exit_code"] == code and [e["function"] for e in result["events"]] == ["body"]


IN_GC_CALLBACK = """\
import gc, sys, time
gc.callbacks.append(lambda phase, info: time.sleep(0.25))   # as JAX's own gc callback, it takes a while
print("ready", flush=True)
for _ in range(40):
    gc.collect()
print("finished", flush=True)
"""


@pytest.mark.parametrize("sig,code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_that_lands_in_a_gc_callback_is_not_lost(tmp_path, sig, code):
    """Python ignores an exception raised inside a garbage-collector callback ("Exception ignored in ..."):
    a SIGTERM or Ctrl-C whose handler ran there was lost and the program ran on to exit 0 (JAX registers such
    a callback). The swallowed exception is sent again as the same signal."""
    import os
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "gcprog.py").write_text(IN_GC_CALLBACK)
    p = subprocess.Popen([sys.executable, "-m", "jitscope", "watch", "-q", "gcprog.py"], cwd=tmp_path,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"}, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.readline() == "ready\n"
    time.sleep(1.0)  # inside a gc callback almost all the time
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=120)
    assert p.returncode == code, err
    assert "finished" not in out
