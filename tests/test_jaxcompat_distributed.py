"""The distributed-runtime access watch uses in a ``jax.distributed`` job (issue 16 items 2 and 3), on the
installed JAX: the process index read without starting a backend, and the coordination service's
key-value store, in a real one-process ``jax.distributed`` job (a subprocess: initialize is once per process)."""

from __future__ import annotations

import socket
import subprocess
import sys

PROGRAM = """
import jax
from jitscope import _jaxcompat
from jitscope.collect.distributed import process_identity
assert _jaxcompat.distributed_process() is None and _jaxcompat.distributed_store() is None
jax.distributed.initialize("localhost:{port}", 1, 0, initialization_timeout=60)  # fails if a backend had started
assert _jaxcompat.distributed_process() == (0, 1)
assert process_identity() is None  # one process: nothing is renamed or compared
kv = _jaxcompat.distributed_store()
kv.set("jitscope/t/a", "1"); kv.set("jitscope/t/b", "2"); kv.set("jitscope/t/a", "3")  # overwrite allowed
assert kv.get("jitscope/t/b", 5.0) == "2"
assert sorted(kv.dir("jitscope/t/")) == [("jitscope/t/a", "3"), ("jitscope/t/b", "2")], kv.dir("jitscope/t/")
try:
    kv.get("jitscope/t/never", 0.2)
except Exception:
    pass
else:
    raise AssertionError("a key nobody set must time out")
jax.distributed.shutdown()
assert _jaxcompat.distributed_process() == (0, 1) or _jaxcompat.distributed_process() is None
print("ok")
"""


def test_process_index_and_key_value_store_on_installed_jax():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    p = subprocess.run([sys.executable, "-c", PROGRAM.format(port=port)], capture_output=True, text=True,
                       timeout=120, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_a_client_without_the_calls_disables_only_the_live_comparison(monkeypatch, capsys):
    import jax._src.distributed as distributed

    from jitscope import _jaxcompat

    class OldClient:  # a client of a JAX whose store has other names
        def key_value_set(self, key, value):  # noqa: ANN001, ANN201
            pass

    monkeypatch.setattr(distributed.global_state, "client", OldClient())
    monkeypatch.setattr(_jaxcompat._base, "_SAID", set())
    assert _jaxcompat.distributed_store() is None
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "blocking_key_value_get, key_value_dir_get" in err[0], err
    assert _jaxcompat.CAPABILITY_USES["distributed_kv"] in err[0]
