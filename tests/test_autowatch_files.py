"""``JITSCOPE=watch``'s per-process files (issue #23 item 3): created with ``O_CREAT | O_EXCL | O_NOFOLLOW``
under names that collide neither across containers (each one pid 1) nor through pid reuse.

Real interpreters started with the variable, through the startup hook installed with the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import compile_lines

PLANT = """\
import os, sys
import jitscope._autowatch as aw
events, result = aw.paths()
os.symlink(sys.argv[1], result)                  # a link planted at the name the result will be written to
os.symlink(sys.argv[1], result[:-5] + ".p0.json")
import jax, jax.numpy as jnp
jax.jit(lambda x: x + 1)(jnp.ones(3))
print("program done", flush=True)
"""

COMPILE = """\
import sys
import jax, jax.numpy as jnp
jax.jit(lambda x: x * int(sys.argv[1]))(jnp.ones(int(sys.argv[1])))
print("done", sys.argv[1], flush=True)
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JITSCOPE") and k != "PYTHONPATH"}
    return {**env, "JAX_PLATFORMS": "cpu", **extra}


def test_a_link_planted_at_the_result_name_is_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim.conf"
    victim.write_text("precious\n")
    out = tmp_path / "shared"
    out.mkdir()
    (tmp_path / "plant.py").write_text(PLANT)
    p = subprocess.run([sys.executable, str(tmp_path / "plant.py"), str(victim)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env=_env(JITSCOPE="watch", JITSCOPE_DIR=str(out)))
    assert p.returncode == 0 and "program done" in p.stdout, p.stderr
    assert victim.read_text() == "precious\n"  # neither overwritten nor truncated
    lines = [line for line in p.stderr.splitlines() if line.startswith("jitscope:")]
    assert len(lines) == 1 and "cannot write" in lines[0] and "exists" in lines[0], p.stderr
    (events,) = out.glob("jitscope-*.events.jsonl")  # the events file, a name nobody could plant
    assert len(compile_lines(events)) == 1


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1) for a pid namespace")
def test_two_containers_both_pid_1_keep_both_results(tmp_path: Path) -> None:
    probe = subprocess.run(["unshare", "-p", "-f", sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout.strip() != "1":
        pytest.skip(f"cannot make a pid namespace here: {probe.stderr.strip()[:200]}")
    out = tmp_path / "shared"
    out.mkdir()
    (tmp_path / "prog.py").write_text(COMPILE)
    procs = [subprocess.Popen(["unshare", "-p", "-f", sys.executable, str(tmp_path / "prog.py"), str(n)],
                              cwd=tmp_path, env=_env(JITSCOPE="watch", JITSCOPE_DIR=str(out)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in (3, 5)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    results = sorted(out.glob("jitscope-*.json"))
    assert len(results) == 2, sorted(f.name for f in out.iterdir())
    shapes = set()
    for r in results:
        data = json.loads(r.read_text())
        assert {e["pid"] for e in data["events"]} == {1}  # both really were pid 1
        token = r.name[len("jitscope-"):].split(".")[0]
        events = [json.loads(line) for line in compile_lines(out / f"jitscope-{token}.events.jsonl")]
        assert len(events) == len(data["events"]) == 1
        shapes.add(tuple(events[0]["signature"]["leaves"][0]["shape"]))
    assert shapes == {(3,), (5,)}


def test_open_exclusive_refuses_a_link_and_an_existing_file(tmp_path: Path) -> None:
    from jitscope._files import open_exclusive, process_token

    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OSError):
        open_exclusive(tmp_path / "dangling")
    assert not (tmp_path / "nowhere").exists()  # not created through the link
    (tmp_path / "there").write_text("x")
    with pytest.raises(FileExistsError):
        open_exclusive(tmp_path / "there")
    assert (tmp_path / "there").read_text() == "x"
    with open_exclusive(tmp_path / "new") as f:
        f.write("ok")
    assert (tmp_path / "new").read_text() == "ok"
    token = process_token()
    assert token == process_token() and token.startswith(f"{os.getpid()}-")
