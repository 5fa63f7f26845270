"""The capability table feature-detects each private hook and never raises (issue 10 item 1)."""

import jax
import pytest

from jitscope import _jaxcompat


def test_all_hooks_attach_on_installed_jax():
    caps = _jaxcompat.capabilities()
    assert set(caps) == set(_jaxcompat.CAPABILITY_USES)
    assert all(ok for ok, _ in caps.values()), caps


@pytest.mark.parametrize("name,module,attr", [
    ("jit_call_hook", "jax._src.pjit", "_infer_params"),
    ("fastpath_hook", "jax._src.pjit", "_get_fastpath_data"),
    ("execute_frame", "jax._src.interpreters.pxla", "ExecuteReplicated"),
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
    _jaxcompat.hooks._PJIT_HOOK = "_infer_params_moved"
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


def test_user_file_filter_falls_back_when_jax_offers_none(monkeypatch):
    """A JAX without source_info_util.is_user_filename: jitscope's path filter takes over. (JAX itself
    calls that function while tracing, so it is removed only around jitscope's own lookups here.)"""
    import json as json_mod

    from jax._src import source_info_util

    from jitscope import _jaxcompat

    monkeypatch.setattr(source_info_util, "is_user_filename", None)
    monkeypatch.setattr(_jaxcompat.source, "_USER_FILE_CACHE", {})
    assert _jaxcompat.capabilities()["user_frames"][0] is False
    assert _jaxcompat.is_user_file(__file__)
    assert not _jaxcompat.is_user_file(json_mod.__file__)  # the standard library
    assert not _jaxcompat.is_user_file(jax.__file__)
    assert "unavailable here: user_frames" in _jaxcompat.version_notice()


def test_inspect_runs_when_a_jit_object_cannot_be_unwrapped(monkeypatch):
    """Without a readable _jit_info, inspect treats a jax.jit object as a plain function and still
    reports the program (its static options are simply not known)."""
    import jax.numpy as jnp

    import jitscope
    from jitscope import _jaxcompat

    monkeypatch.setattr(_jaxcompat.source, "unwrap_jit", lambda fn: None)
    result = jitscope.inspect(jax.jit(lambda x: jnp.sin(x) * 2), jnp.ones(4), sample_seconds=0.01, numerics=False)
    assert result.status == "ok" and result.jaxpr is not None


def test_watch_runs_without_monitoring_duration_listeners(monkeypatch):
    import jax.monitoring

    import jitscope
    from jitscope import _jaxcompat

    monkeypatch.delattr(jax.monitoring, "register_event_duration_secs_listener")
    assert _jaxcompat.capabilities()["monitoring"][0] is False
    f = jax.jit(lambda x: x + 1)
    with jitscope.watch(explain=False) as w:
        f(jax.numpy.ones(3))
    w.result()  # no exception: compiles recorded from what remains (spans, the jit hook)
