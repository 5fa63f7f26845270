"""I/O failures of jitscope's own outputs never reach the watched program (issue #23 item 4).

A full disk (``/dev/full``, and a real small tmpfs when this machine lets the suite mount one), a pipe
whose reader went away, and a ``--dump`` directory that fills up: the program runs to its end with its
own exit code, jitscope says once, in one line, what it could not write, and the end-of-run ``--json``
(written elsewhere) holds every compile it kept in memory.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import run_cli

PROG = """\
import os, sys, time
import jax, jax.numpy as jnp
f = jax.jit(lambda x: x * 2)
n = int(sys.argv[1])
for i in range(1, n + 1):
    f(jnp.ones(i))
    if i == 1 and len(sys.argv) > 2:          # wait until the test has closed the pipe's reader
        while not os.path.exists(sys.argv[2]):
            time.sleep(0.05)
print("program done", flush=True)
sys.exit(7)
"""


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    (tmp_path / "prog.py").write_text(PROG)
    return tmp_path / "prog.py"


def _jitscope_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("jitscope:")]


def test_a_full_device_never_stops_the_program(prog: Path, tmp_path: Path) -> None:
    p = run_cli("watch", "-q", "--events", "/dev/full", "--json", str(tmp_path / "r.json"), str(prog), "3",
                cwd=tmp_path)
    assert p.returncode == 7, p.stderr  # the program's own exit code
    assert "program done" in p.stdout and "Traceback" not in p.stderr, p.stderr
    lines = _jitscope_lines(p.stderr)
    assert len(lines) == 1 and "cannot write /dev/full" in lines[0] and "No space left" in lines[0], p.stderr
    assert len(json.loads((tmp_path / "r.json").read_text())["events"]) == 3  # kept in memory


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 24 KiB tmpfs (root only; skipped where the suite may not mount)."""
    where = tmp_path / "small"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24k", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()[:200]}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_disk_that_fills_up_during_the_run_never_stops_the_program(prog: Path, tmp_path: Path, small_disk: Path) -> None:
    events = small_disk / "e.jsonl"
    p = run_cli("watch", "-q", "--events", str(events), "--json", str(tmp_path / "r.json"), str(prog), "40",
                cwd=tmp_path)
    assert p.returncode == 7 and "program done" in p.stdout, p.stderr
    lines = _jitscope_lines(p.stderr)
    assert len(lines) == 1 and f"cannot write {events}" in lines[0] and "No space left" in lines[0], p.stderr
    assert len(json.loads((tmp_path / "r.json").read_text())["events"]) == 40
    written = events.read_text().splitlines()
    assert 0 < len(written) < 40  # it did fill up part way


def test_a_dump_cut_short_by_a_full_disk_says_so_once(prog: Path, tmp_path: Path, small_disk: Path) -> None:
    p = run_cli("watch", "-q", "--dump", str(small_disk / "dump"), "--json", str(tmp_path / "r.json"), str(prog),
                "12", cwd=tmp_path)
    assert p.returncode == 7 and "program done" in p.stdout, p.stderr
    lines = _jitscope_lines(p.stderr)
    assert len(lines) == 1 and "--dump" in lines[0] and "No space left" in lines[0], p.stderr
    assert len(json.loads((tmp_path / "r.json").read_text())["events"]) == 12


def test_a_pipe_whose_reader_went_away_never_stops_the_program(prog: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "events.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDWR)  # held open from here: the writer's open never blocks
    closed = tmp_path / "reader-closed"
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen([sys.executable, "-m", "jitscope", "watch", "-q", "--events", str(fifo), "--json",
                             str(tmp_path / "r.json"), str(prog), "3", str(closed)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = b""
    deadline = time.monotonic() + 240
    while b"\n" not in got and time.monotonic() < deadline:  # the first compile's line
        got += os.read(reader, 65536)
    os.close(reader)  # the reader goes away: the next write is EPIPE
    closed.write_text("")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 7 and "program done" in out, err
    lines = _jitscope_lines(err)
    assert len(lines) == 1 and f"cannot write {fifo}" in lines[0] and "Broken pipe" in lines[0], err
    assert len(json.loads((tmp_path / "r.json").read_text())["events"]) == 3


def test_a_soft_file_says_an_io_error_once_and_drops_the_rest(tmp_path: Path, capfd) -> None:
    from jitscope._files import SoftFile

    class FailingDisk:  # what a file object does when the device returns EIO
        def write(self, text: str) -> int:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        def flush(self) -> None:
            pass

        def close(self) -> None:
            pass

    f = SoftFile(FailingDisk(), str(tmp_path / "x.jsonl"))  # type: ignore[arg-type]
    results = [f.write("a\n") for _ in range(3)]
    threads = [threading.Thread(target=f.write, args=("b\n",)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [False, False, False] and f.closed and f.error == os.strerror(errno.EIO)
    err = capfd.readouterr().err
    assert err.count("jitscope: cannot write") == 1 and "Input/output error" in err
