"""The capability table feature-detects each private hook and never raises (issue 10 item 1)."""

import pytest

from jitscope import _jaxcompat


def test_all_hooks_attach_on_installed_jax():
    caps = _jaxcompat.capabilities()
    assert set(caps) == set(_jaxcompat.CAPABILITY_USES)
    assert all(ok for ok, _ in caps.values()), caps


@pytest.mark.parametrize("name,module,attr", [
    ("jit_call_hook", "jax._src.pjit", "_infer_params"),
    ("hide_frames", "jax._src.source_info_util", "register_exclusion"),
    ("hide_frames", "jax._src.traceback_util", "register_exclusion"),
    ("monitoring", "jax.monitoring", "register_event_duration_secs_listener"),
])
def test_missing_hook_disables_only_its_capability(monkeypatch, name, module, attr):
    import importlib
    monkeypatch.delattr(importlib.import_module(module), attr)
    caps = _jaxcompat.capabilities()
    ok, why = caps[name]
    assert not ok and attr in why
    assert all(ok for n, (ok, _) in caps.items() if n != name), caps


WATCH_RUNNER = """
import importlib, sys
from jitscope import _jaxcompat
if sys.argv[1] == "pjit":  # simulate a JAX that moved the hook (deleting it would break JAX itself)
    _jaxcompat._PJIT_HOOK = "_infer_params_moved"
else:
    delattr(importlib.import_module(sys.argv[1]), sys.argv[2])
from jitscope.cli import main
sys.exit(main(["watch", sys.argv[3]]))
"""

TINY = """
import jax, jax.numpy as jnp
f = jax.jit(lambda x: x * 2)
for n in (3, 4):
    f(jnp.ones(n))
print("tiny done")
"""


@pytest.mark.parametrize("module,attr,capability", [
    ("pjit", "-", "jit_call_hook"),
    ("jax._src.source_info_util", "register_exclusion", "hide_frames"),
    ("jax._src.traceback_util", "register_exclusion", "hide_frames"),
])
def test_watch_runs_without_a_hook_and_says_what_is_missing(tmp_path, module, attr, capability):
    import os
    import subprocess
    import sys

    script = tmp_path / "tiny.py"
    script.write_text(TINY)
    p = subprocess.run([sys.executable, "-c", WATCH_RUNNER, module, attr, str(script)],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    assert "tiny done" in p.stdout
    assert "compiles" in p.stdout + p.stderr  # the summary still printed
    said = [line for line in p.stderr.splitlines() if "lacks a hook" in line]
    assert len(said) == 1 and _jaxcompat.CAPABILITY_USES[capability] in said[0], p.stderr
