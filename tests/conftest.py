"""Shared test helpers: real JAX on CPU, real subprocesses of the real CLI."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

# CI runners and background jobs (`make test &`) start the suite with SIGINT ignored, and an ignored
# disposition is inherited by every child: Python would then never raise KeyboardInterrupt in the
# programs the tests run. A handler (unlike SIG_IGN) is reset to the default across exec, so the
# children see SIGINT as they would from a terminal. (No preexec_fn: forking a threaded JAX process
# can deadlock.)
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@contextlib.contextmanager
def importable_package(root: Path, name: str, files: dict[str, str]):
    """Write the package ``name`` under ``root`` (``files``: file name -> text), make it importable, and undo
    both on exit (``root`` leaves sys.path, the package's modules leave sys.modules)."""
    pkg = root / name
    pkg.mkdir(exist_ok=True)
    for file, text in files.items():
        (pkg / file).write_text(text)
    sys.path.insert(0, str(root))
    try:
        yield pkg
    finally:
        sys.path.remove(str(root))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def run_cli(*args: str, cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None,
            timeout: float = 300, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m jitscope ARGS`` in a subprocess; return the completed process (text mode)."""
    full_env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(FIXTURES), "COLUMNS": "160",
                **(env or {})}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], cwd=cwd or ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout, input=input)


def watch_pytest(root: Path, files: dict[str, str], test_file: str, env: dict[str, str] | None = None) -> dict:
    """Write ``files`` (relative path -> text) under ``root``, run ``jitscope watch -m pytest test_file`` there, and
    return the run's JSON (the run must pass)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    out = root / "run.json"
    r = run_cli("watch", "-q", "--json", str(out), "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file,
                cwd=root, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(out.read_text())


def compile_lines(path: str | os.PathLike[str]) -> list[str]:
    """The compile-event lines of a watch ``--events`` file (its ``{"type": "program"}`` lines left out)."""
    return [line for line in Path(path).read_text().splitlines() if not line.startswith('{"type": ')]


def count_compiles(fn) -> int:
    """How many backend compiles running ``fn()`` caused (JAX's own monitoring events)."""
    import jax

    seen = []

    def listener(name, _dur, **_kw):
        if name.endswith("backend_compile_duration"):
            seen.append(name)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        fn()
    finally:
        from jitscope._jaxcompat import unregister_listener  # public from JAX 0.7; 0.6's private name before

        unregister_listener("duration", listener)
    return len(seen)


@pytest.fixture
def cli():
    """The ``run_cli`` helper as a fixture; ``tests/fixtures`` is on PYTHONPATH of the child."""
    return run_cli


@pytest.fixture
def fixtures_on_path(monkeypatch):
    """Make ``tests/fixtures`` importable in-process."""
    monkeypatch.syspath_prepend(str(FIXTURES))
    return FIXTURES


@pytest.fixture
def lint_fixture(monkeypatch):
    """Import a lint rule's fixture module fresh: ``lint_fixture("JS614")`` is ``tests/lint_fixtures/JS614.py``,
    forgotten again after the test (the rule tests run the fixture's code under real JAX)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent / "lint_fixtures"))
    loaded: list[str] = []

    def load(code: str):
        sys.modules.pop(code, None)
        loaded.append(code)
        return __import__(code)

    yield load
    for code in loaded:
        sys.modules.pop(code, None)
