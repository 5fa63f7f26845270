"""The shared records: JSON round trips, signatures of real JAX values, timing statistics."""

from __future__ import annotations

import json

import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.model import ArgSignature, CompileEvent, Finding, Fix, LeafSpec, Location, Reason, Timing


def roundtrip(record):
    return type(record).from_dict(json.loads(json.dumps(record.to_dict())))


def test_compile_event_roundtrip_keeps_nested_records():
    ev = CompileEvent(
        function="loss",
        definition=Location("model.py", 3, 1, "loss"),
        call_site=Location("train.py", 10),
        signature=ArgSignature((LeafSpec("[0][0]", (3, 4), "float32"),), {"n": "3"}, "PyTreeDef(*)"),
        phases={"trace": 0.1, "compile": 0.2},
        reason=Reason("shape_change", "x: f32[3] -> f32[4]"),
        index=2,
    )
    back = roundtrip(ev)
    assert back == ev
    assert isinstance(back.signature.leaves, tuple) and isinstance(back.signature.leaves[0], LeafSpec)
    assert back.total_seconds == pytest.approx(0.3)


def test_finding_with_fix_roundtrip():
    f = Finding("JS101", "builtin sum over an array", "warning", Location("a.py", 2, 5),
                fix=Fix("use jnp.sum", safety="safe", replacement="jnp.sum(x)"))
    assert roundtrip(f) == f


def test_timing_statistics_and_nan_free_json():
    t = Timing([3.0, 1.0, 2.0])
    assert (t.median, t.min, t.max) == (2.0, 1.0, 3.0)
    assert roundtrip(t) == t
    assert Timing().median is None
    assert json.loads(json.dumps(Timing([float("nan")]).to_dict()))["samples"] == [None]


def test_signature_of_real_values_marks_weak_types():
    sig = ArgSignature.of((jnp.ones((2, 3)), 1.0, np.int32(4)), {"flag": True}, static={"n": 5})
    shorts = [leaf.short() for leaf in sig.leaves]
    assert shorts[0] == "f32[2,3]"
    assert shorts[1] == "~f32[]"  # a Python float traces weakly typed
    assert shorts[2] == "i32[]"
    assert sig.static == {"n": "5"}
    assert "n=5" in sig.short()


def test_signature_of_typed_prng_keys():
    import jax

    sig = ArgSignature.of((jax.random.key(0),))
    assert sig.leaves[0].shape == () and "key" in sig.leaves[0].dtype
