"""watch in a real ``jax.distributed`` job (issue 16 items 2 and 3): 2 CPU processes on localhost, a
coordinator on a free port, each started as a real subprocess (``jitscope watch`` or ``JITSCOPE=watch``),
every job bounded by a timeout and killed in teardown (JAX's preemption notifier ignores SIGTERM, so
SIGKILL). One xdist group: the jobs share the machine's 2 cores."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("multiproc")

BIN = Path(sys.executable).parent
JOB = Path(__file__).parent / "fixtures" / "multiproc_job.py"
N = 2
TIMEOUT = 120  # seconds: a job that takes longer is killed and the test fails (never a timing assertion)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("JITSCOPE") and k != "PYTHONPATH"}
    return {**base, "JAX_PLATFORMS": "cpu", "COLUMNS": "200", "PYTHONUNBUFFERED": "1", **extra}


class Job:
    """``n`` processes of one job; ``out[i]``/``err[i]`` are their output files."""

    def __init__(self, cwd: Path, argv_of, env_of=lambda i: env(), n: int = N) -> None:  # type: ignore[no-untyped-def]
        self.cwd = cwd
        self.procs: list[subprocess.Popen[bytes]] = []
        self.out = [cwd / f"stdout{i}.txt" for i in range(n)]
        self.err = [cwd / f"stderr{i}.txt" for i in range(n)]
        for i in range(n):
            with open(self.out[i], "wb") as o, open(self.err[i], "wb") as e:
                self.procs.append(subprocess.Popen(argv_of(i), cwd=cwd, env=env_of(i), stdout=o, stderr=e))

    def wait(self) -> list[int]:
        deadline = time.monotonic() + TIMEOUT
        codes = []
        for p in self.procs:
            try:
                codes.append(p.wait(timeout=max(1.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                self.kill()
                pytest.fail(f"the job did not end within {TIMEOUT} s:\n" + "\n".join(map(self.stderr, range(len(self.procs)))))
        return codes

    def wait_for(self, i: int, text: str) -> str:
        """Wait until process ``i``'s stderr holds ``text`` (bounded); the stderr."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            err = self.stderr(i)
            if text in err:
                return err
            if all(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.2)
        return self.stderr(i)

    def stderr(self, i: int) -> str:
        return self.err[i].read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)


@pytest.fixture
def jobs():
    started: list[Job] = []
    yield started
    for job in started:
        job.kill()


def watch_job(jobs, cwd: Path, mode: str, *opts: str, n: int = N) -> Job:
    port = str(free_port())
    job = Job(cwd, lambda i: [str(BIN / "jitscope"), "watch", "-q", *opts, str(JOB), str(i), str(n), port, mode], n=n)
    jobs.append(job)
    return job


def line_of(code: str) -> int:
    """The fixture's line holding ``code`` (the call sites the reports must name)."""
    return next(n for n, ln in enumerate(JOB.read_text().splitlines(), 1) if code in ln)


SHAPE_5, SHAPE_4, TOTAL = line_of("prep(jnp.ones(5))"), line_of("prep(jnp.ones(4))"), line_of("out = total(")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "jitscope"), *args], env=env(), capture_output=True, text=True, timeout=TIMEOUT)


def events(path: Path) -> list[dict]:
    """The compile events of an events file (its ``{"type": "program"}`` lines left out)."""
    return [e for e in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
            if "type" not in e]


def test_same_programs_per_process_files_and_no_divergence(jobs, tmp_path):
    job = watch_job(jobs, tmp_path, "same", "--events", "run.jsonl", "--json", "run.json",
                    "--timeline", "run.trace.json")
    assert job.wait() == [0] * N, job.stderr(0) + job.stderr(1)
    for i in range(N):  # N processes given one path: one file each, named by process index
        evs = events(tmp_path / f"run.p{i}.jsonl")
        assert [e["function"] for e in evs] == ["prep", "total"]
        assert {e["process_index"] for e in evs} == {i}
        result = json.loads((tmp_path / f"run.p{i}.json").read_text())
        assert (result["process_index"], result["process_count"]) == (i, N)
        assert {e["process_index"] for e in result["events"]} == {i}
        assert (tmp_path / f"run.trace.p{i}.json").is_file()
    assert not (tmp_path / "run.jsonl").exists() and not (tmp_path / "run.json").exists()
    err0 = job.stderr(0)
    assert f"jitscope: {N} processes compiled the same 2 programs in the same order" in err0
    assert "divergence" not in err0 + job.stderr(1)

    merged = cli("merge", str(tmp_path), "--json", str(tmp_path / "out" / "m.json"),
                 "--html", str(tmp_path / "out" / "m.html"), "--timeline", str(tmp_path / "out" / "m.trace"),
                 "--fail-on-divergence")
    assert merged.returncode == 0, merged.stderr
    assert f"no divergence: {N} processes compiled the same 2 programs in the same order" in merged.stdout
    data = json.loads((tmp_path / "out" / "m.json").read_text())
    assert data["kind"] == "merge" and data["divergences"] == []
    assert [p["process_index"] for p in data["processes"]] == list(range(N))
    assert [p["source"].endswith(f"run.p{i}.json") for i, p in enumerate(data["processes"])] == [True] * N
    html = (tmp_path / "out" / "m.html").read_text()
    assert html.index("No divergence") < html.index('<section id="timeline">') and html.count(">process 1</text>") == 1
    trace = json.loads((tmp_path / "out" / "m.trace").read_text())["traceEvents"]
    tracks = {e["args"]["name"] for e in trace if e.get("name") == "process_name"}
    assert tracks == {f"process {i} (pid {job.procs[i].pid})" for i in range(N)}
    assert {(e["pid"], e["name"]) for e in trace if e.get("cat") not in ("phase", None) and e["ph"] == "X"} == \
        {(i + 1, f) for i in range(N) for f in ("prep", "total")}


def test_a_different_shape_names_the_process_the_function_and_the_call_site(jobs, tmp_path):
    job = watch_job(jobs, tmp_path, "shape", "--events", "run.jsonl", n=3)  # 3: the odd one out is named
    assert job.wait() == [0] * 3, job.stderr(0) + job.stderr(1)
    err0 = job.stderr(0)
    line = next(ln for ln in err0.splitlines() if "divergence" in ln)
    # another shape is another program: its fingerprint differs too
    assert line.startswith("jitscope: program divergence at compile #1: process 1 differs "
                           "(signature, fingerprint, call_site)")
    assert f"processes 0, 2: prep(x=f32[4]) at multiproc_job.py:{SHAPE_4}" in line
    assert f"process 1: prep(x=f32[5]) at multiproc_job.py:{SHAPE_5}" in line
    assert "divergence" not in job.stderr(1) + job.stderr(2)  # process 0 compares; the others only publish

    (tmp_path / "run.p1.jsonl").rename(tmp_path / "copy.jsonl")  # any names: the index is read from the files
    merged = cli("merge", str(tmp_path), "--json", str(tmp_path / "m.json"), "--fail-on-divergence")
    assert merged.returncode == 3, merged.stderr
    assert "jitscope: merge --fail-on-divergence: processes diverge at compile #1" in merged.stderr
    assert "program divergence at compile #1: process 1 differs (signature, fingerprint, call_site)" in \
        " ".join(merged.stdout.split())
    d = json.loads((tmp_path / "m.json").read_text())["divergences"][0]
    assert (d["kind"], d["position"], d["processes"], d["differs"]) == \
        ("program", 0, [1], ["signature", "fingerprint", "call_site"])
    assert [(g["processes"], g["event"]["call_site"]["line"]) for g in d["groups"]] == [([0, 2], SHAPE_4), ([1], SHAPE_5)]


def test_the_hang_is_named_live_while_process_0_waits_in_the_collective(jobs, tmp_path):
    job = watch_job(jobs, tmp_path, "hang", "--peer-timeout", "1", "--events", "run.jsonl")
    err0 = job.wait_for(0, "has not compiled it")
    assert job.procs[0].poll() is None, err0  # still waiting in the collective when named
    line = next(ln for ln in err0.splitlines() if "has not compiled it" in ln)
    assert line.startswith(f"jitscope: process 0 compiled total(a=f32[4]) at multiproc_job.py:{TOTAL}")
    assert f"process 1 has not compiled it (last compile: process 1: prep(x=f32[4]) at multiproc_job.py:{SHAPE_4}" in line
    assert "has not compiled" not in job.stderr(1)  # process 1 compiled nothing its peer lacks
    job.kill()


def test_env_switch_names_files_per_process_and_reports_the_divergence(jobs, tmp_path):
    port = str(free_port())
    job = Job(tmp_path, lambda i: [sys.executable, str(JOB), str(i), str(N), port, "shape"],
              lambda i: env(JITSCOPE="watch", JITSCOPE_DIR=str(tmp_path)))
    jobs.append(job)
    assert job.wait() == [0] * N, job.stderr(0) + job.stderr(1)
    pids = [p.pid for p in job.procs]
    for i, pid in enumerate(pids):  # jitscope-<pid>-<host>-<random>.*: one token per process
        (ev,) = tmp_path.glob(f"jitscope-{pid}-*.events.p{i}.jsonl")
        token = ev.name[len("jitscope-"):].split(".")[0]
        assert [e["process_index"] for e in events(ev)] == [i, i]
        assert json.loads((tmp_path / f"jitscope-{token}.p{i}.json").read_text())["process_index"] == i
        assert not (tmp_path / f"jitscope-{token}.events.jsonl").exists()
    assert "program divergence at compile #1: process 1 differs" in job.stderr(0)
    assert "compiled the same" not in job.stderr(0)  # JITSCOPE=watch prints only what is wrong


def readme_blocks() -> list[str]:
    text = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    parts = text.split("<!-- multiproc-commands -->")[1:]
    return [p.split("```", 2)[1].strip("\n") for p in parts]


def test_readme_commands_run_as_written(tmp_path):
    import shutil
    import signal

    blocks = readme_blocks()
    assert len(blocks) == 2 and all(b.startswith("PORT=") for b in blocks)
    shutil.copy(JOB, tmp_path / "train.py")
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"  # `jitscope` and `python` of this environment
    for block, run_dir in zip(blocks, ("run", "run2"), strict=True):
        script = f"PORT={free_port()}\n" + block.split("\n", 1)[1]  # the only change: a free port
        proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=tmp_path, env=env(PATH=path), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the job's processes too, whatever happened
            except ProcessLookupError:
                pass
        assert proc.returncode == 0, err
        assert f"no divergence: {N} processes compiled the same 2 programs" in " ".join(out.split()), out + err
        assert len(list((tmp_path / run_dir).glob("*.p[01].json"))) == N
    assert (tmp_path / "run" / "merged.html").is_file() and (tmp_path / "run" / "merged.trace.json").is_file()


def test_a_program_that_shuts_the_service_down_itself_is_compared_live_only(jobs, tmp_path):
    job = watch_job(jobs, tmp_path, "shutdown", "--events", "run.jsonl")
    assert job.wait() == [0] * N, job.stderr(0) + job.stderr(1)
    assert "jitscope: the program shut jax.distributed down before its end" in job.stderr(0)
    assert "could not compare" not in job.stderr(0) + job.stderr(1)
    assert [len(events(tmp_path / f"run.p{i}.jsonl")) for i in range(N)] == [2] * N
