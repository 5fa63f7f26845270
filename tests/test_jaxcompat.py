"""The installed JAX is inside the range pinned in pyproject.toml and named in _jaxcompat."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jax

from jitscope import _jaxcompat


def _version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])


def test_installed_jax_is_in_the_tested_range():
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    pins = [d for d in pyproject["project"]["dependencies"] if d.startswith("jax>=")]
    assert pins, "jax must be pinned"
    lo, hi = re.match(r"jax>=([\d.]+),<([\d.]+)", pins[0]).groups()
    assert (f">={lo}", f"<{hi}") == _jaxcompat.TESTED_JAX
    assert _version_tuple(lo) <= _version_tuple(jax.__version__) < _version_tuple(hi)
