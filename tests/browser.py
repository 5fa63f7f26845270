"""Headless Debian chromium for HTML tests: dump the rendered DOM, take a screenshot."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.skip("Debian chromium is not installed (make test installs it)")
    return exe


def _run(args: list[str], timeout: float = 90) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout)


def dump_dom(html_path: Path) -> str:
    """The DOM after chromium parsed and laid out the page, as serialized HTML."""
    proc = _run(["--dump-dom", html_path.resolve().as_uri()])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def screenshot(html_path: Path, png_path: Path, size: str = "1200,2400") -> Path:
    """A PNG of the page as a person would see it."""
    proc = _run([f"--screenshot={png_path}", f"--window-size={size}", html_path.resolve().as_uri()])
    assert png_path.exists() and png_path.stat().st_size > 1000, proc.stderr[-2000:]
    return png_path
