"""`jitscope doctor` reports versions, backend and the capability table (issue 10 item 5)."""

import json
import os
import subprocess
import sys

import jax


def _doctor(*extra):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jitscope", "doctor", *extra],
                          capture_output=True, text=True, env=env, timeout=120)


def test_doctor_text():
    p = _doctor()
    assert p.returncode == 0, p.stderr
    assert f"jax {jax.__version__}" in p.stdout
    assert "backend: cpu" in p.stdout
    assert "ok      jit_call_hook" in p.stdout
    assert "jax_compilation_cache_dir" in p.stdout
    assert "Traceback" not in p.stderr


def test_doctor_json():
    p = _doctor("--json")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["jax"] == jax.__version__ and info["backend"] == "cpu"
    assert info["capabilities"]["jit_call_hook"]["available"] is True
