"""House style gates that CI enforces: ruff clean, docs/rules.md and README in sync with the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "benchmarks"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]


def test_readme_names_every_command_and_public_name():

    from jitscope.cli import COMMANDS

    readme = (ROOT / "README.md").read_text()
    for cmd in COMMANDS:
        assert f"jitscope {cmd}" in readme, cmd
    import jitscope

    public = [n for n in jitscope.__all__ if not n.startswith("__")]
    assert len(public) > 20
    missing = [n for n in public if f"`{n}" not in readme and f" {n}(" not in readme and f"{n}," not in readme]
    assert not missing, f"public names not documented in README: {missing}"
