"""JW505 (issue #24): the same NumPy data passed into a jitted call on every step, also where the call's own line
does not show it: an attribute read in a method that a loop elsewhere calls, items of a dict argument held
before the loop, a function parameter. Under real JAX each call transfers a NumPy argument host-to-device
(the compiled program cannot keep it); the clean twins (the data put on the device once, a new batch per step,
preloaded batches picked per step, one buffer refilled in place, a method that rebinds its attributes before
each call) get nothing."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.analyze.pitfalls import finding_classes
from jitscope.results import load_result

FIXTURES = Path(__file__).parent / "fixtures"


def test_jax_transfers_a_numpy_argument_at_every_call_and_a_device_array_never():
    f = jax.jit(lambda w, b: w + b["x"].sum())
    batch, w = {"x": np.ones((64, 64), np.float32)}, jnp.zeros(())
    f(w, batch), f(w, batch)  # compiled and cached
    with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
        with jax.transfer_guard_host_to_device("disallow"):
            f(w, batch)
    on_device = jax.device_put(batch)
    f(w, on_device)
    with jax.transfer_guard_host_to_device("disallow"):
        f(w, on_device)


def test_the_same_host_data_through_attributes_dicts_and_parameters_is_reported_and_twins_are_not(tmp_path):
    from conftest import run_cli

    program = FIXTURES / "watch_host_containers.py"
    out = tmp_path / "w.json"
    p = run_cli("watch", "--json", str(out), "--slow-compile", "600", str(program))
    assert out.exists(), p.stderr[-2000:]
    findings = [f for f in load_result(out).findings if f.code.startswith("JW")]
    expected = {(m.group(1), m.group(2), i) for i, line in enumerate(program.read_text().splitlines(), 1)
                if (m := re.search(r"# expect: (JW\d{3}) (\S+)\s*$", line))}
    assert {(f.code, f.function, f.location.line) for f in findings} == expected
    by_fn = {f.function: f for f in findings}
    for f in findings:
        assert "implicit-host-transfer" in finding_classes(f) and f.severity == "warning"
        assert f.details["bytes_per_call"] == 1024 * 64 * 4 + 1024 * 4
    attr = by_fn["step_attr"]
    assert [a["name"] for a in attr.details["arguments"]] == ["self.x_np", "self.y_np"]
    assert attr.details["loop"]["function"] == "main" and "called from the loop at line" in attr.message
    assert [a["name"] for a in by_fn["step_dict"].details["arguments"]] == ["data['x']", "data['y']"]
    assert [a["name"] for a in by_fn["step_param"].details["arguments"]] == ["x", "y"]


def test_the_bytes_sent_are_those_of_the_dtype_jax_makes_of_the_host_array():
    """A float64 NumPy argument arrives as float32 while jax_enable_x64 is off: JW505 counts what is sent."""
    import jitscope

    x_np = np.ones((256, 64), np.float64)
    assert jax.jit(lambda x: x)(x_np).dtype == jnp.float32  # the host array becomes float32 on the device
    step = jax.jit(lambda w, x: w + x.sum())
    with jitscope.watch(slow_compile=600) as w:
        acc = jnp.zeros(())
        for _ in range(30):
            acc = step(acc, x_np)
    (f,) = [f for f in w.result().findings if f.code == "JW505"]
    assert f.details["bytes_per_call"] == 256 * 64 * 4
