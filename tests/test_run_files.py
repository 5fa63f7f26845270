"""Saved runs that are not runs (issue #23, the "Medium" list): empty files, devices, wrong-type lines and
directories full of other files are refused or skipped in one line by ``diff``, ``warmup`` and ``merge``
alike, never read until memory runs out, never taken for a run of 0 compiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location


def _event(process: int | None = None) -> dict:
    e = CompileEvent(function="f", definition=Location("m.py", 3), module="m", pid=7, process_index=process,
                     signature=ArgSignature((LeafSpec("x", (3,), "float32"),), {}, "x: PyTreeDef(*)", ()))
    return e.to_dict()


@pytest.fixture
def good(tmp_path: Path) -> Path:
    f = tmp_path / "good.jsonl"
    f.write_text(json.dumps(_event()) + "\n")
    return f


def _one_line_exit_2(p, *words: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: ") and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("bad", ["empty", "/dev/null", "/dev/zero", "directory"])
def test_diff_and_warmup_refuse_what_is_not_a_run(tmp_path: Path, good: Path, bad: str) -> None:
    if bad == "empty":
        path = str(tmp_path / "crashed.jsonl")
        Path(path).write_text("")
        words = ["empty"]
    elif bad == "directory":
        path, words = str(tmp_path), ["directory"]
    else:
        path, words = bad, ["device"]
    _one_line_exit_2(run_cli("diff", "--fail-on", "new-compiles", str(good), path, timeout=60), path, *words)
    _one_line_exit_2(run_cli("warmup", path, "-o", str(tmp_path / "w.py"), timeout=60), path, *words)
    assert not (tmp_path / "w.py").exists()


def test_a_run_that_compiled_nothing_is_one_header_line_and_a_run(tmp_path: Path) -> None:
    (tmp_path / "idle.py").write_text("import jax\nprint('nothing compiled')\n")
    p = run_cli("watch", "-q", "--events", "idle.jsonl", "idle.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (line,) = (tmp_path / "idle.jsonl").read_text().splitlines()
    header = json.loads(line)
    assert header["type"] == "run" and header["pid"] > 0 and "jitscope" in header
    p = run_cli("diff", "idle.jsonl", "idle.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr


def test_merge_skips_a_wrong_type_line_that_diff_refuses(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for i in range(2):
        (run / f"ok.p{i}.jsonl").write_text(json.dumps(_event(i)) + "\n")
    bad = _event(2)
    bad["signature"]["leaves"] = "not a list"
    (run / "bad.p2.jsonl").write_text(json.dumps(bad) + "\n")
    _one_line_exit_2(run_cli("diff", str(run / "ok.p0.jsonl"), str(run / "bad.p2.jsonl")), "bad.p2.jsonl")
    p = run_cli("merge", str(run))
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "skipped" in p.stdout and "bad.p2.jsonl" in p.stdout and "not a watch --events line" in p.stdout


def test_merge_of_a_directory_full_of_other_files_stays_short(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for i in range(2):
        (run / f"ok.p{i}.jsonl").write_text(json.dumps(_event(i)) + "\n")
    for n in range(5000):
        (run / f"other{n:04d}.json").write_text('{"unrelated": true}')
    p = run_cli("merge", str(run), "--json", str(tmp_path / "m.json"), timeout=300)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) < 40, p.stdout[-2000:]
    assert "skipped 4,990 more files" in p.stdout
    assert len(json.loads((tmp_path / "m.json").read_text())["skipped"]) == 5000
