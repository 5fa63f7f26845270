"""A complete warm-up on real training scripts run as scripts (issue #26, Done-when 1): equinox MLP + optax,
flax nnx + optax, plain JAX with registered dataclasses (tests/fixtures/training/).

For each: ``jitscope watch --json run.json train.py``, ``jitscope warmup run.json -o warm.py``, then
``jitscope watch --warmup warm.py train.py`` exits 0 with 0 misses, and the program's own count of the
compiles of its jitted functions after the warm-up (its own ``jax.monitoring`` listener, from the start of
``main()``) is 0, where the recording run (the control) counted them. Each script is ``__main__``: its
functions are warmed at its main guard, in its own process, with its own objects.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

HERE = Path(__file__).resolve().parent / "fixtures" / "training"
SCRIPTS = ["train_equinox.py", "train_nnx.py", "train_dataclass.py"]


def _report(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_complete_warmup_leaves_the_training_script_nothing_to_compile(script, tmp_path):
    program = str(HERE / script)
    r = run_cli("watch", "-q", "--json", str(tmp_path / "run.json"), program, "--epochs", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    control = _report(r.stdout)["own"]
    assert control == {"jit(train_step)": 2, "jit(eval_step)": 1}, control  # two batch sizes; one eval set
    r = run_cli("warmup", "run.json", "-o", "warm.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "3 ahead-of-time compiles covering 3 of 3 recorded compiles (functions: 2 of 2)" in r.stdout, r.stdout
    assert "3 of the program's own __main__" in r.stdout
    r = run_cli("watch", "--warmup", "warm.py", "--json", str(tmp_path / "check.json"), program, "--epochs", "2",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = _report(r.stdout)
    assert report["own"] == {"jit(train_step)": 0, "jit(eval_step)": 0}, report
    assert not {f: n for f, n in report["in_loop"].items() if f in control}, report
    check = json.loads((tmp_path / "check.json").read_text())
    warm = check["warmup"]
    assert warm["missed"] == 0 and check["events"] == [] and warm["compiles"] == 3, warm
    assert warm["main_entries"] == 3 and warm["main_guard"] is True and warm["exit_code"] == 0


def _python(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"JAX_PLATFORMS": "cpu", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.parametrize("how", ["script", "module"])
def test_the_warmup_script_runs_the_program_warmed_without_jitscope(tmp_path, how):
    """``python warm.py train.py`` and ``python warm.py -m train`` (JAX only): the same 0, and the same program
    output as a plain run (the warm-up changes nothing the program computes)."""
    target = ["train_dataclass.py"] if how == "script" else ["-m", "train_dataclass"]
    r = run_cli("watch", "-q", "--json", str(tmp_path / "run.json"), *(["-m"] if how == "module" else []),
                target[-1] if how == "module" else str(HERE / target[0]), "--epochs", "1", cwd=HERE)
    assert r.returncode == 0, r.stderr
    assert run_cli("warmup", str(tmp_path / "run.json"), "-o", str(tmp_path / "warm.py"), cwd=HERE).returncode == 0
    plain = _python(HERE, *target, "--epochs", "1")
    warmed = _python(HERE, str(tmp_path / "warm.py"), *target, "--epochs", "1")
    assert plain.returncode == 0 and warmed.returncode == 0, warmed.stderr
    assert _report(plain.stdout)["own"] == {"jit(train_step)": 2, "jit(eval_step)": 1}
    assert _report(warmed.stdout)["own"] == {"jit(train_step)": 0, "jit(eval_step)": 0}, warmed.stdout
    assert plain.stdout.splitlines()[:-1] == warmed.stdout.splitlines()[:-1]  # the same losses, epoch by epoch
    assert "warmup: compiled 3 of 3" in warmed.stderr
