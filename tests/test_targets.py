"""Arg specs, static values and target resolution: the inputs shared by compare/inspect/scale."""

from __future__ import annotations

import re

import pytest

from jitscope.errors import UsageError
from jitscope.targets import ArraySpec, build_call, parse_arg_spec, parse_static, resolve_target


@pytest.mark.parametrize(
    "text,expected",
    [
        ("f32[1000,1000]", ArraySpec("float32", (1000, 1000))),
        ("i32[]", ArraySpec("int32", ())),
        ("bool[ 8 ]", ArraySpec("bool", (8,))),
        ("3", 3),
        ("2.5", 2.5),
    ],
)
def test_parse_arg_spec(text, expected):
    assert parse_arg_spec(text) == expected


@pytest.mark.parametrize("text", ["f33[3]", "float[3", "f32[a]", "lambda: 1"])
def test_bad_arg_spec_is_a_usage_error_naming_it(text):
    with pytest.raises(UsageError, match="arg spec"):
        parse_arg_spec(text)


def test_static_values_are_literals_or_strings():
    assert parse_static(["n=3", "mode=fast", "shape=(2, 3)"]) == {"n": 3, "mode": "fast", "shape": (2, 3)}
    with pytest.raises(UsageError, match="name=value"):
        parse_static(["oops"])


def test_build_call_is_seeded_and_typed():
    a1, _ = build_call(["f32[4]", "i32[2]"], ["n=2"], None, seed=1)
    a2, kw = build_call(["f32[4]", "i32[2]"], ["n=2"], None, seed=1)
    assert a1[0].dtype == "float32" and a1[1].dtype == "int32"
    assert (a1[0] == a2[0]).all() and kw == {"n": 2}


def test_unknown_module_and_attribute(tmp_path):
    with pytest.raises(UsageError, match="cannot import module 'no_such_mod_xyz'"):
        resolve_target("no_such_mod_xyz:f")
    with pytest.raises(UsageError, match="has no attribute 'nope'"):
        resolve_target("json:nope")
    with pytest.raises(UsageError, match="did you mean 'dumps?'"):
        resolve_target("json:dumsp")
    with pytest.raises(UsageError, match="expected module:function"):
        resolve_target("json")
    f = tmp_path / "m.py"
    f.write_text("def g(x):\n    return x\n")
    assert resolve_target(f"{f}:g").obj(3) == 3


def test_huge_shape_is_a_usage_error_not_a_memory_error():
    from jitscope.targets import make_args

    with pytest.raises(UsageError, match=r"f32\[100000,100000,100000\].*(memory|allocate)"):
        make_args([parse_arg_spec("f32[100000,100000,100000]")])


def test_float_args_are_generated_in_their_own_width():
    import numpy as np

    from jitscope.targets import make_args

    (x, h, b) = make_args([parse_arg_spec("f32[3,2]"), parse_arg_spec("f16[4]"), parse_arg_spec("bf16[2]")], seed=1)
    assert (x.dtype, h.dtype, str(b.dtype)) == (np.float32, np.float16, "bfloat16")
    expected = np.random.default_rng(1).standard_normal((3, 2), dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(x), expected)


@pytest.mark.parametrize("item,shown", [("n=[1,2]", "n=[1, 2]"), ("cfg={'a': 1}", "cfg={'a': 1}")])
def test_unhashable_static_is_a_usage_error(item, shown):
    with pytest.raises(UsageError, match=re.escape(f"static argument {shown} is unhashable")):
        parse_static([item])
    with pytest.raises(UsageError, match="unhashable; pass a tuple" if "[" in item else "unhashable"):
        build_call(["f32[2]"], [item], None)
    assert parse_static(["n=(1, 2)"]) == {"n": (1, 2)}
