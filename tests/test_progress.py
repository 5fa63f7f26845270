"""Progress on a terminal, nothing in a pipe (#14 item 5): inspect, compare and scale announce what
they measure (``jitscope._progress.stage``); the CLI shows it on stderr only when stderr is a TTY."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading

import pytest
from conftest import FIXTURES, ROOT

from jitscope._progress import listening, stage

COMMANDS = {
    "scale": ["scale", "inspect_integral:make_jnp", "--sizes", "50,100", "--repeats", "1", "--no-run"],
    "inspect": ["inspect", "inspect_integral:integrate_jnp", "--arg", "f32[]", "--sample-seconds", "0.02"],
    "compare": ["compare", "inspect_integral:integrate_jnp", "--arg", "f32[]", "--sample-seconds", "0.02",
                "--min-samples", "3"],
}


def _run_with_tty_stderr(args: list[str]) -> tuple[int, str, str]:
    """Run ``python -m jitscope ARGS`` with stderr on a pseudo-terminal and stdout on a pipe."""
    master, slave = pty.openpty()
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(FIXTURES), "COLUMNS": "160", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "jitscope", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL, text=True)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out, _ = proc.communicate(timeout=300)
    reader.join(timeout=10)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_progress_on_a_terminal_and_not_in_a_pipe(command, cli):
    code, out, tty_err = _run_with_tty_stderr(COMMANDS[command])
    assert code == 0, tty_err
    assert f"jitscope {command}:" in tty_err  # the status line, on the terminal
    assert f"jitscope {command}:" not in out  # never on stdout
    piped = cli(*COMMANDS[command])
    assert piped.returncode == 0, piped.stderr
    assert f"jitscope {command}:" not in piped.stderr  # a pipe or a CI log gets no progress
    _, _, quiet = _run_with_tty_stderr([*COMMANDS[command], "--no-progress"])
    assert f"jitscope {command}:" not in quiet


def test_stage_reaches_only_the_listening_thread():
    seen: list[str] = []
    stage("nobody listens")  # costs nothing, raises nothing
    with listening(seen.append):
        stage("compiling")
        t = threading.Thread(target=stage, args=("another thread",))
        t.start()
        t.join()
    stage("after")
    assert seen == ["compiling"]


def test_a_failing_display_never_stops_the_measurement():
    def broken(_: str) -> None:
        raise RuntimeError("terminal gone")

    with listening(broken):
        stage("compiling")  # no exception
