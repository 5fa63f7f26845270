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
    assert sig.leaves[0].shape == () and sig.leaves[0].dtype == "key<fry>"


def test_leaf_specs_use_the_dtype_jit_computes_in():
    # x64 is off in the tests: jit computes a NumPy float64 array in float32, a Python int as int32.
    sig = ArgSignature.of((np.ones(3), np.arange(2, dtype=np.int64), 7, 2.0, True, 1j))
    assert [leaf.short() for leaf in sig.leaves] == ["f32[3]", "i32[2]", "~i32[]", "~f32[]", "bool[]", "~c64[]"]


def _sig_call(x, ints, n, scale, params):
    return x


def test_arg_signature_of_agrees_with_the_watch_signature_builder():
    from jitscope.collect.watch_signature import call_signature

    args = (np.ones((2, 3)), np.arange(4), 3, 0.5, {"w": jnp.ones(2), "b": np.float64(1.0)})
    by_position = ArgSignature.of(args)
    by_name = call_signature(_sig_call, (), (), args, {})
    assert [leaf.path for leaf in by_name.leaves] == ["x", "ints", "n", "scale", "params['b']", "params['w']"]
    assert ([(leaf.shape, leaf.dtype, leaf.weak_type) for leaf in by_position.leaves]
            == [(leaf.shape, leaf.dtype, leaf.weak_type) for leaf in by_name.leaves])


def test_watch_signature_builder_names_typed_prng_keys():
    import jax

    from jitscope.collect.watch_signature import call_signature

    sig = call_signature(lambda key: key, (), (), (jax.random.key(0),), {})
    assert sig.leaves[0].dtype == "key<fry>"


def test_static_argname_passed_by_keyword_is_not_mistaken_for_a_positional_argument():
    import jax
    import jax.numpy as jnp

    from jitscope.collect.watch_signature import call_signature

    def f(x, n):
        return x * n

    # jax.jit(f, static_argnames="n") also lists n as static argnum 1; called as f(x, n=3) there is
    # no positional argument 1, and x (argument 0) must stay a traced leaf.
    sig = call_signature(f, (1,), ("n",), (jnp.ones(3),), {"n": 3})
    assert [leaf.short() for leaf in sig.leaves] == ["f32[3]"] and sig.leaves[0].path == "x"
    assert sig.static == {"n": "3"}
    assert jax.jit(f, static_argnames="n")(jnp.ones(3), n=3).shape == (3,)


def test_identity_hashed_mark_matches_what_watch_writes():
    from jitscope.collect.watch_signature import static_repr
    from jitscope.model import is_identity_hashed

    class Plain:  # no __eq__/__hash__: jit hashes it by identity
        pass

    assert is_identity_hashed(static_repr(Plain()))
    assert not is_identity_hashed(static_repr((1, 2))) and not is_identity_hashed(None)
    assert not is_identity_hashed("'hashed by identity'")  # a user string that merely mentions it
