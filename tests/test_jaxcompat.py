"""The installed JAX is inside the range pinned in pyproject.toml and named in _jaxcompat."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jax

from jitscope import _jaxcompat


def _version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])


def test_installed_jax_satisfies_the_pin_and_the_notice_follows_the_tested_release(monkeypatch):
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    pins = [d for d in pyproject["project"]["dependencies"] if d.startswith("jax>=")]
    assert pins, "jax must be pinned"
    lo = re.match(r"jax>=([\d.]+)", pins[0]).group(1)
    assert _version_tuple(lo) <= _version_tuple(jax.__version__)
    assert _jaxcompat.version_notice() is None  # this suite runs on the fully tested release
    monkeypatch.setattr(jax, "__version__", "0.8.3")
    assert _jaxcompat.version_notice() is None  # in the matrix's range
    monkeypatch.setattr(jax, "__version__", "0.12.0")
    assert "JAX 0.12.0 is outside jitscope's tested range (0.6 - 0.10)" in _jaxcompat.version_notice()


