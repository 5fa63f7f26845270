"""``_jaxcompat``'s persistent-cache helpers against the installed JAX: the log texts it parses are
the ones JAX writes, and a JAX without them degrades to one notice (issue 15 item 1)."""

from __future__ import annotations

import json
import subprocess
import sys

from jitscope import _jaxcompat
from jitscope.model import CACHE_KEY_COMPONENTS

# Runs in a child: the persistent cache is process-global state this test must not leave behind.
READ_JAX_LINES = r"""
import json, logging, sys
import jax, jax.numpy as jnp
from jitscope import _jaxcompat

lines = []
class Keep(logging.Handler):
    def emit(self, record):
        lines.append((record.name, record.getMessage()))
for name in _jaxcompat.CACHE_LOGGERS:
    lg = logging.getLogger(name)
    lg.setLevel(logging.DEBUG)
    lg.addHandler(Keep())
    lg.propagate = False
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
f = jax.jit(lambda x: jnp.sin(x) * 3)
f(jnp.ones(5))                          # miss, written
jax.clear_caches()
f(jnp.ones(5))                          # hit
jax.config.update("jax_persistent_cache_min_compile_time_secs", 60)
jax.jit(lambda x: jnp.cos(x) - 1)(jnp.ones(5))   # miss, not written: under the threshold
parsed = [_jaxcompat.parse_cache_log(n, m) for n, m in lines]
print(json.dumps([p for p in parsed if p is not None]))
"""


def test_parses_the_lines_this_jax_writes(tmp_path):
    r = subprocess.run([sys.executable, "-c", READ_JAX_LINES, str(tmp_path / "cache")], capture_output=True,
                       text=True, timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    parsed = json.loads(r.stdout.strip().splitlines()[-1])
    kinds = {kind for kind, _ in parsed}
    assert {"component", "compile_options", "miss", "hit", "written", "min_compile_time"} <= kinds, kinds
    names = {fields["name"] for kind, fields in parsed if kind == "component"}
    assert names == set(CACHE_KEY_COMPONENTS)
    [under] = [fields for kind, fields in parsed if kind == "min_compile_time"]
    assert float(under["min"]) == 60 and float(under["seconds"]) < 60
    assert all(len(fields["hash"]) == 64 for kind, fields in parsed if kind == "component")


def test_capability_is_detected():
    assert _jaxcompat.cache_key_logging() is None
    assert _jaxcompat.capabilities()["cache_key_log"] == (True, "ok")


def test_unrelated_lines_are_not_parsed():
    assert _jaxcompat.parse_cache_log("jax._src.compiler", "Finished XLA compilation of jit(f)") is None


MOVED = r"""
import sys
from jitscope import _jaxcompat
# A JAX whose cache loggers moved: watch reads no key line, yet records hit/miss/written from
# jax.monitoring and says once what it cannot record.
_jaxcompat.cache.CACHE_KEY_LOGGER = _jaxcompat.CACHE_KEY_LOGGER = "jax._src.cache_key_moved"
_jaxcompat.cache.CACHE_LOGGERS = _jaxcompat.CACHE_LOGGERS = ("jax._src.cache_key_moved",)
from jitscope.cli import main
sys.exit(main(["watch", "-q", "--json", sys.argv[1], sys.argv[2]]))
"""

TWO_COMPILES = """
import os
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", os.environ["CACHE_DIR"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
f = jax.jit(lambda x: x * 2)
f(jnp.ones(3))
f(jnp.ones(4))
"""


def test_a_jax_without_key_lines_degrades_to_one_notice(tmp_path):
    import os

    prog = tmp_path / "prog.py"
    prog.write_text(TWO_COMPILES)
    out = tmp_path / "r.json"
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", MOVED, str(out), str(prog)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    notices = [line for line in r.stderr.splitlines() if "persistent-cache key's components" in line]
    assert len(notices) == 1 and notices[0].startswith("jitscope: JAX "), r.stderr
    assert "Traceback" not in r.stderr
    events = json.loads(out.read_text())["events"]
    assert len(events) == 2
    for e in events:
        pc = e["persistent_cache"]
        assert pc["enabled"] and pc["outcome"] == "miss" and pc["written"] is True  # from jax.monitoring
        assert pc["components"] == []
