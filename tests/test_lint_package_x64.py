"""JS306 and x64 turned on at import: Python runs a package's `__init__.py` (and every enclosing package's) before
any of its modules, so `jax.config.update("jax_enable_x64", True)` there holds whenever the module's code runs and a
big Python int meeting an array is an int64, not an overflow (run below in a fresh process). The same module in a
package that does not turn x64 on still raises OverflowError (still reported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from jitscope.lint import lint_source

MODULE = '''
import jax
import jax.numpy as jnp


@jax.jit
def mask(x):
    return x & 0xFFFFFFFF


def run():
    return int(mask(jnp.arange(3, dtype=jnp.uint32) + 7)[0])
'''
X64_INIT = 'import jax\n\njax.config.update("jax_enable_x64", True)\n'


def _package(root: Path, name: str, init: str) -> Path:
    (root / name / "ops").mkdir(parents=True)
    (root / name / "__init__.py").write_text(init)
    (root / name / "ops" / "__init__.py").write_text("")
    (root / name / "ops" / "bits.py").write_text(MODULE)
    return root / name / "ops" / "bits.py"


def _run(root: Path, module: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(root)}
    env.pop("JAX_ENABLE_X64", None)
    return subprocess.run([sys.executable, "-c", f"import {module} as m; print(m.run())"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_x64_enabled_by_an_enclosing_package_init(tmp_path: Path) -> None:
    wide = _package(tmp_path, "wide", X64_INIT)
    narrow = _package(tmp_path, "narrow", "import jax\n")
    assert lint_source(MODULE, str(wide), select=["JS306"]) == []
    assert [f.code for f in lint_source(MODULE, str(narrow), select=["JS306"])] == ["JS306"]
    ok = _run(tmp_path, "wide.ops.bits")
    assert ok.returncode == 0 and ok.stdout.strip() == "7", ok.stderr[-500:]
    bad = _run(tmp_path, "narrow.ops.bits")
    assert bad.returncode != 0 and "OverflowError" in bad.stderr, bad.stderr[-500:]


def test_an_edited_package_init_is_read_again(tmp_path: Path) -> None:
    """One process linting twice (the API, an editor) sees an ``__init__.py`` edited in between: no answer is kept
    for a directory past the file's change."""
    bits = _package(tmp_path, "pkg", "import jax\n")
    assert [f.code for f in lint_source(MODULE, str(bits), select=["JS306"])] == ["JS306"]
    init = tmp_path / "pkg" / "__init__.py"
    init.write_text(X64_INIT)
    st = init.stat()
    os.utime(init, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a later modification time, whatever the clock
    assert lint_source(MODULE, str(bits), select=["JS306"]) == []
    init.write_text("import jax\n")
    os.utime(init, ns=(st.st_atime_ns, st.st_mtime_ns + 2 * 10**9))
    assert [f.code for f in lint_source(MODULE, str(bits), select=["JS306"])] == ["JS306"]
