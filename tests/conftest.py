"""Shared test helpers: real JAX on CPU, real subprocesses of the real CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def default_signals() -> None:
    """Run in a child before exec: SIGINT back to its default, as in a terminal.

    CI runners and background jobs (`make test &`) start the suite with SIGINT ignored, and an
    ignored disposition is inherited; Python then never raises KeyboardInterrupt in the child.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli(*args: str, cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None,
            timeout: float = 300, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m jitscope ARGS`` in a subprocess; return the completed process (text mode)."""
    full_env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(FIXTURES), "COLUMNS": "160",
                **(env or {})}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], cwd=cwd or ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout, input=input,
                          preexec_fn=default_signals)


@pytest.fixture
def cli():
    """The ``run_cli`` helper as a fixture; ``tests/fixtures`` is on PYTHONPATH of the child."""
    return run_cli


@pytest.fixture
def fixtures_on_path(monkeypatch):
    """Make ``tests/fixtures`` importable in-process."""
    monkeypatch.syspath_prepend(str(FIXTURES))
    return FIXTURES
