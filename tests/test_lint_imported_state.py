"""JS403 on another module's container: a traced function that stores a traced value in a list or dict another
module of the project defines (``from .state import CACHE``, ``state.CACHE``) leaks the tracer into state that lives
as long as the process (real JAX: the stored value is a tracer and using it raises UnexpectedTracerError); a
trace-time registry of Python values, eager code and a library's object stay quiet (docs/lint.md, "Caches")."""

from __future__ import annotations

import importlib
import textwrap

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

STATE = """
CACHE = {}
HISTORY = []
REGISTRY = []
"""

MODEL = """
import jax
import numpy as np
from jax import config

from . import state
from .state import CACHE, HISTORY


@jax.jit
def step(x):
    CACHE["last"] = x  # JS403
    HISTORY.append(x * 2)  # JS403
    state.CACHE.update({"y": x + 1})  # JS403
    state.REGISTRY.append("step")
    HISTORY.extend([np.float32(1.0)])
    return x + 1


def eager(x):
    CACHE["eager"] = x
    HISTORY.append(x)
"""


@pytest.fixture
def package(tmp_path):
    from conftest import importable_package

    files = {"__init__.py": "", "state.py": STATE, "model.py": textwrap.dedent(MODEL)}
    with importable_package(tmp_path, "leakpkg", files) as pkg:
        yield pkg


def test_a_traced_value_stored_in_another_modules_dict_is_a_dead_tracer(package):
    model = importlib.import_module("leakpkg.model")
    state = importlib.import_module("leakpkg.state")
    model.step(jnp.ones(3))
    for leaked in (state.CACHE["last"], state.CACHE["y"], state.HISTORY[0]):
        assert isinstance(leaked, jax.core.Tracer)
        with pytest.raises(jax.errors.UnexpectedTracerError):
            jnp.sum(leaked) + 1
    assert state.REGISTRY == ["step"]  # a Python value: recorded once, nothing of the trace


def test_lint_flags_the_traced_stores_into_imported_containers_only(package):
    path = package / "model.py"
    src = path.read_text()
    lines = src.splitlines()
    found = [f for f in lint_source(src, str(path)) if f.code == "JS403"]
    flagged = {lines[f.location.line - 1].strip() for f in found}
    assert flagged == {line.strip() for line in lines if line.rstrip().endswith("# JS403")}
    assert any("another module's `state.CACHE`" in f.message for f in found)


def test_a_library_object_or_a_script_import_is_not_this_projects_state(tmp_path):
    script = tmp_path / "run.py"  # no package: `from state import CACHE` could be anything installed
    src = "import jax\nfrom state import CACHE\n\n@jax.jit\ndef f(x):\n    CACHE['k'] = x\n    return x\n"
    script.write_text(src)
    assert not [f for f in lint_source(src, str(script)) if f.code == "JS403"]
