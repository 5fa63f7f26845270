"""JW508 (issue #24): the same host data converted to a device array on every step, by the program's eager
``jnp.asarray`` / ``jnp.array`` / ``jax.device_put``, under real JAX. The fixture marks the lines that must
be reported (``# expect: JW508 function``); its look-alikes (data converted once, a new batch each step, a
buffer refilled in place, scalars and tiny arrays, a copy a heavy step hides, a conversion inside a trace)
must get nothing."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jitscope.analyze.pitfalls import finding_classes
from jitscope.results import load_result

FIXTURES = Path(__file__).parent / "fixtures"


def _expected(path: Path) -> set[tuple[str, str, int]]:
    return {(m.group(1), m.group(2), i) for i, line in enumerate(path.read_text().splitlines(), 1)
            if (m := re.search(r"# expect: (JW\d{3}) (\S+)\s*$", line))}


def test_the_same_host_data_converted_each_step_is_reported_and_look_alikes_are_not(tmp_path):
    from conftest import run_cli

    program = FIXTURES / "watch_host_transfer.py"
    out = tmp_path / "w.json"
    p = run_cli("watch", "--json", str(out), "--slow-compile", "600", str(program))
    assert out.exists(), p.stderr[-2000:]
    findings = [f for f in load_result(out).findings if f.code == "JW508"]
    assert {(f.code, f.function, f.location.line) for f in findings} == _expected(program)
    for f in findings:
        assert "implicit-host-transfer" in finding_classes(f)
        assert f.details["share"] >= 0.10 and f.details["calls"] == 30 and f.seconds > 0
        assert "before the loop" in f.fix.title
    (put,) = [f for f in findings if f.function == "train_device_put"]
    assert put.details["arrays"] == ["f32[512,256]", "f32[512]"] and put.details["apis"] == ["jax.device_put"]


def test_the_conversion_hook_changes_nothing_jax_returns_and_is_removed():
    from jitscope.collect.host_transfers import HostTransferProbe

    originals = (jnp.asarray, jnp.array, jax.device_put)
    x = np.arange(4096, dtype=np.float32).reshape(64, 64)
    probe = HostTransferProbe().install()
    try:
        assert jnp.asarray is not originals[0]
        a, b = jnp.asarray(x), jnp.array(object=x, dtype=jnp.float16)
        c = jax.device_put({"x": x, "s": 1.0})
        d = jnp.asarray(3.0)
        assert a.dtype == jnp.float32 and b.dtype == jnp.float16 and float(c["s"]) == 1.0 and d.weak_type
        assert np.array_equal(np.asarray(a), x) and np.array_equal(np.asarray(c["x"]), x)
        jax.jit(lambda v: v + jnp.asarray(x))(a)  # inside a trace: a constant, not a transfer
    finally:
        probe.uninstall()
    assert (jnp.asarray, jnp.array, jax.device_put) == originals
    apis = sorted(s.api for s in probe.sites.values())
    assert apis == ["jax.device_put", "jnp.array", "jnp.asarray"]  # the scalar and the traced one: not seen


def test_a_buffer_refilled_in_place_is_new_data_and_a_rebuilt_copy_is_the_same():
    from jitscope.collect.host_transfers import digest

    buf = np.zeros((600, 600), np.float32)  # larger than the sample: compared on a sample
    before = digest([buf])
    buf[:] = np.random.default_rng(0).random((600, 600), dtype=np.float32)
    assert digest([buf]) != before
    assert digest([buf.copy()]) == digest([buf]) and digest([buf.T]) != digest([buf])
