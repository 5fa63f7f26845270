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
