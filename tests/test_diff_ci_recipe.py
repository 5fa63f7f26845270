"""The CI recipe of docs/watch.md, run as written on real versions of a training script.

The reference run is the script with its step jitted inside the loop (6 compiles of the step); the
pull request that hoists the ``jax.jit`` out of the loop (1 compile) must pass the gate, and a later
pull request that makes the last batch smaller (a new ``shape_change`` recompile) must fail it.
Functions move lines between the versions: they are matched by name and program, not by line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = ROOT / "tests" / "fixtures" / "ci_recipe"
MARK = "<!-- ci-recipe"


def recipe() -> tuple[list[str], list[str]]:
    """The recipe's commands from docs/watch.md: those run on main, those run on a pull request."""
    text = (ROOT / "docs" / "watch.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text.split(MARK, 1)[1], re.S)
    assert block is not None, "docs/watch.md: the CI recipe's ```sh block after the ci-recipe mark"
    on_main: list[str] = []
    on_pr: list[str] = []
    target = on_main
    for line in block.group(1).splitlines():
        if line.startswith("# on main"):
            target = on_main
        elif line.startswith("# on a pull request"):
            target = on_pr
        elif line.strip() and not line.startswith("#"):
            target.append(line)
    assert on_main and on_pr and any(c.startswith("jitscope diff") for c in on_pr), block.group(1)
    return on_main, on_pr


def run(commands: list[str], cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Each command in a shell, as a CI job's steps would run it, with this venv's ``jitscope`` on PATH."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "COLUMNS": "160",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    assert shutil.which("jitscope", path=env["PATH"]), "the jitscope command is not installed in this venv"
    return [subprocess.run(["bash", "-c", c], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
            for c in commands]


def checkout(workdir: Path, version: str) -> None:
    shutil.copy(VERSIONS / f"{version}.py", workdir / "train.py")  # the same file name, as in a checkout


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """The recipe on (before -> after) and on (after -> regressed): each step's completed process."""
    on_main, on_pr = recipe()
    out = {}
    for name, (main, pr) in {"fix": ("before", "after"), "regression": ("after", "regressed")}.items():
        work = tmp_path_factory.mktemp(name)
        checkout(work, main)
        ref = run(on_main, work)
        assert all(r.returncode == 0 for r in ref), [r.stderr for r in ref]
        checkout(work, pr)
        out[name] = (work, run(on_pr, work))
    return out


def test_the_pull_request_that_hoists_the_jit_passes_the_gate(gated):
    work, steps = gated["fix"]
    *watch, gate = steps
    assert all(r.returncode == 0 for r in watch), [r.stderr for r in watch]
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "compiles fewer" in gate.stdout and "an improvement" in gate.stdout, gate.stdout
    assert "passed" in gate.stdout and "jitscope: diff --fail-on" not in gate.stderr
    reference = json.loads((work / "reference.json").read_text())
    head = json.loads((work / "head.json").read_text())
    steps_a = [e for e in reference["events"] if e["definition"]["line"] == 29]  # the step, in the loop
    assert len(steps_a) == 6 and len(head["events"]) == 2, (len(steps_a), len(head["events"]))
    assert (work / "diff.html").exists()


def test_a_new_recompile_cause_fails_the_gate(gated):
    _work, steps = gated["regression"]
    *watch, gate = steps
    assert all(r.returncode == 0 for r in watch), [r.stderr for r in watch]
    assert gate.returncode == 3, gate.stdout + gate.stderr
    breaches = [line for line in gate.stderr.splitlines() if line.startswith("jitscope: diff --fail-on:")]
    assert breaches and all("train.<locals>.<lambda>" in b and "shape_change" in b for b in breaches), breaches
    assert any("2 compiles, was 1" in b for b in breaches), breaches


def test_new_compiles_alone_passes_the_fix_and_fails_the_regression(gated):
    """The README's older gate, ``--fail-on new-compiles``: the same verdicts on the same runs."""
    from jitscope._diff import diff

    fix_dir, _ = gated["fix"]
    res = diff(fix_dir / "reference.json", fix_dir / "head.json", fail_on=["new-compiles"], min_seconds=60)
    assert res.violations == [] and res.compiles_a - res.compiles_b == 5, res.violations
    step = next(d for d in res.functions if d.compiles_a == 6)
    assert (step.compiles_b, step.status, step.matched_by) == (1, "fewer_compiles", "program")
    reg_dir, _ = gated["regression"]
    res = diff(reg_dir / "reference.json", reg_dir / "head.json", fail_on=["new-compiles"], min_seconds=60)
    assert len(res.violations) == 1 and "2 compiles, was 1" in res.violations[0], res.violations


def test_the_readme_shows_the_tested_recipe():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    on_main, on_pr = recipe()
    for command in on_main + on_pr:
        assert command in readme, f"README.md lacks the tested CI recipe's command: {command}"
    gates = re.findall(r"^jitscope diff --fail-on .*$", readme, re.M)
    assert gates and set(gates) <= set(on_pr), gates


def test_a_reference_saved_before_module_names_still_gates_with_a_note(gated, tmp_path):
    """A reference run written before watch recorded ``module``: diff loads it, matches by file name
    and program, says so, and reaches the same verdicts."""
    from conftest import run_cli

    for name, code in (("fix", 0), ("regression", 3)):
        work, _ = gated[name]
        old = json.loads((work / "reference.json").read_text())
        for e in old["events"]:
            del e["module"]
        legacy = tmp_path / f"{name}-legacy.json"
        legacy.write_text(json.dumps(old))
        r = run_cli("diff", "--fail-on", "new-compiles,new-causes", str(legacy), str(work / "head.json"))
        assert r.returncode == code, r.stdout + r.stderr
        assert "note: run A has no module names" in r.stdout, r.stdout
