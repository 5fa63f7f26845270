"""`jitscope watch -m pytest` stamps each compile with its test however jitscope is installed.

pytest loads jitscope's plugin (which sets the running test's node id) through the ``pytest11`` entry point
only where jitscope is an installed distribution and plugin autoloading is on. From a source checkout on
``PYTHONPATH``, or with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, nothing loaded it: every compile was recorded
with no test, so pairing and advice were not scoped per test (a held-out scorer ran it that way). watch now
names the plugin with ``-p`` there, never twice, and never against ``-p no:jitscope``.
"""

from __future__ import annotations

import json

from conftest import run_cli, watch_pytest

SUITE = '''
import jax
import jax.numpy as jnp


def test_one():
    jax.jit(lambda x: x + 1)(jnp.ones(2))


def test_two():
    jax.jit(lambda x: x * 2)(jnp.ones(3))
'''


def test_compiles_carry_their_test_without_the_entry_point(tmp_path):
    data = watch_pytest(tmp_path, {"test_s.py": SUITE}, "test_s.py", env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert [e["test"] for e in data["events"]] == ["test_s.py::test_one", "test_s.py::test_two"]


def test_with_the_entry_point_it_is_loaded_once_and_no_jitscope_is_respected(tmp_path):
    data = watch_pytest(tmp_path, {"test_s.py": SUITE}, "test_s.py")  # the entry point loads it: no second -p
    assert [e["test"] for e in data["events"]] == ["test_s.py::test_one", "test_s.py::test_two"]
    out = tmp_path / "off.json"
    r = run_cli("watch", "-q", "--json", str(out), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                "no:jitscope", "test_s.py", cwd=tmp_path, env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert [e["test"] for e in json.loads(out.read_text())["events"]] == [None, None]
