"""JS606: an equinox/nnx Module storing a function object made per instance recompiles per instance.

The claim is checked under real ``eqx.filter_jit`` and ``nnx.jit`` in tests/test_jaxmodel.py
(``test_static_field_bases_...``: a partial per instance traces once per instance, a shared one once);
here the same program shapes are linted, and one is run.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jax.numpy as jnp
import pytest

import jitscope

SRC = (Path(__file__).parent / "lint_fixtures" / "JS606.py").read_text()  # its `# JS606` lines: 21, 27, 32, 37


def test_js606_flags_function_objects_made_per_instance(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS606"])
    assert [(f.location.line, f.severity) for f in result.findings] == [
        (21, "warning"), (27, "warning"), (32, "warning"), (37, "warning")]
    assert "`self._norm` of `WeightNorm` is a `partial` made anew for every instance: equinox" in \
        result.findings[0].message
    assert "nnx keeps it" in result.findings[3].message


def test_real_filter_jit_traces_once_per_weight_norm_instance():
    eqx = pytest.importorskip("equinox")
    traces = []

    class WeightNorm(eqx.Module):
        w: object
        _norm: object

        def __init__(self):
            self.w = jnp.ones(3)
            self._norm = functools.partial(jnp.linalg.norm, axis=0)

    @eqx.filter_jit
    def apply(m, x):
        traces.append(1)
        return m._norm(m.w) * x

    for _ in range(3):
        apply(WeightNorm(), 1.0)
    assert len(traces) == 3


def test_js606_inside_the_library_itself_through_a_relative_import(tmp_path):
    pkg = tmp_path / "equinox"
    (pkg / "nn").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from ._module import Module\n")
    (pkg / "_module.py").write_text("class Module:\n    pass\n")
    (pkg / "nn" / "__init__.py").write_text("")
    (pkg / "nn" / "_norm.py").write_text(
        "import functools as ft\n\nimport jax.numpy as jnp\n\nfrom .._module import Module\n\n\n"
        "class WeightNorm(Module):\n    def __init__(self, axis):\n"
        "        self._norm = ft.partial(jnp.linalg.norm, axis=axis)\n")
    result = jitscope.lint([str(pkg)], config=False, jobs=1, select=["JS606"])
    assert [(f.location.file.rsplit("/", 1)[-1], f.location.line) for f in result.findings] == [("_norm.py", 10)]
