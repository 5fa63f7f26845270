"""Normalised StableHLO fingerprints (collect/program_text.py) on real lowered modules."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitscope.collect.program_text import capture, normalise, program_text, short_value


def _asm(fn, *args) -> str:
    return jax.jit(fn).lower(*args).compiler_ir().operation.get_asm(enable_debug_info=False)


def _norm(fn, *args):
    return capture(jax.jit(fn).lower(*args).compiler_ir())


def _body(x, y):
    return jnp.where(x > 0, jnp.sin(x) * y, y) + 0.5


def f(x, y):
    return _body(x, y)


def g(x, y):  # another name, another definition line: the same program
    return _body(x, y)


def test_renamed_function_and_other_lines_give_the_same_fingerprint():
    x = jnp.ones(3)
    a, b = _norm(f, x, x), _norm(g, x, x)
    raw_a = jax.jit(f).lower(x, x).compiler_ir().operation.get_asm(enable_debug_info=True)
    raw_b = jax.jit(g).lower(x, x).compiler_ir().operation.get_asm(enable_debug_info=True)
    assert raw_a != raw_b  # module names and locations differ before normalisation
    assert "@jit_f" in raw_a and "@jit_g" in raw_b
    assert a.fingerprint == b.fingerprint
    assert "@jit_" not in a.text and "loc(" not in a.text


def test_private_functions_renumbered_in_order_of_first_appearance():
    def inner_a(x):
        return jnp.cos(x) * 3.0

    def inner_b(x):
        return jnp.cos(x) * 3.0

    def outer_a(x):
        return jax.jit(inner_a)(x) + 1.0

    def outer_b(x):
        return jax.jit(inner_b)(x) + 1.0

    x = jnp.ones(4)
    asm_a, asm_b = _asm(outer_a, x), _asm(outer_b, x)
    assert "@inner_a" in asm_a and "@inner_b" in asm_b  # real private functions with different names
    assert normalise(asm_a).fingerprint == normalise(asm_b).fingerprint
    # A private symbol renumbered by JAX (jax-ml/jax#38828: @_where vs @_where_0) changes nothing either.
    where = _asm(f, x, x)
    assert "@_where" in where
    assert normalise(where.replace("@_where", "@_where_0")).fingerprint == normalise(where).fingerprint


def test_names_outside_the_module_are_kept():
    x = jnp.ones(3)
    asm = _asm(f, x, x)
    # A symbol the module does not define (a custom_call target) names real code: never renamed.
    a = normalise(asm.replace("stablehlo.sine %", "stablehlo.custom_call @target_a(%"))
    b = normalise(asm.replace("stablehlo.sine %", "stablehlo.custom_call @target_b(%"))
    assert a.fingerprint != b.fingerprint


def test_weak_type_and_committed_array_leave_the_same_program():
    y = jnp.ones(3)
    weak = _norm(f, 1.0, y)
    strong = _norm(f, jnp.float32(1.0), y)
    committed = _norm(f, jax.device_put(jnp.float32(1.0), jax.devices()[0]), y)
    raw_weak = jax.jit(f).lower(1.0, y).compiler_ir().operation.get_asm(enable_debug_info=False)
    raw_strong = jax.jit(f).lower(jnp.float32(1.0), y).compiler_ir().operation.get_asm(enable_debug_info=False)
    assert raw_weak != raw_strong  # JAX emits a convert to the same type for the weak scalar
    assert weak.fingerprint == strong.fingerprint == committed.fingerprint


def test_constants_blind_fingerprint_and_values():
    def make(lr):
        def step(w):
            return w - lr * jnp.tanh(w)
        return step

    w = jnp.ones(4)
    a, b = _norm(make(0.1), w), _norm(make(0.01), w)
    assert a.fingerprint != b.fingerprint
    assert a.constants_blind_fingerprint == b.constants_blind_fingerprint
    ta, tb = program_text(a), program_text(b)
    assert ta.constants == ["0.1 : f32"] and tb.constants == ["0.01 : f32"]
    assert ta.lines() == tb.lines()  # the blind text itself
    assert any("dense<#k>" in line for line in ta.lines())


def test_shapes_and_ops_change_the_constants_blind_fingerprint():
    x3, x4 = jnp.ones(3), jnp.ones(4)
    assert _norm(f, x3, x3).constants_blind_fingerprint != _norm(f, x4, x4).constants_blind_fingerprint

    def h(x, y):
        return jnp.where(x > 0, jnp.cos(x) * y, y) + 0.5

    assert _norm(f, x3, x3).constants_blind_fingerprint != _norm(h, x3, x3).constants_blind_fingerprint


def test_short_values():
    assert short_value("0.00999999977", "tensor<f32>") == "0.01 : f32"
    assert short_value("1.000000e-01", "tensor<f32>") == "0.1 : f32"
    assert short_value("3", "tensor<i32>") == "3 : i32"
    assert short_value("2.000000e+00", "tensor<4x2xf32>") == "2 : f32[4,2]"
    long = '"0x' + "AB" * 100 + '"'
    other = '"0x' + "AB" * 99 + 'CD"'
    assert short_value(long, "tensor<100xf32>") != short_value(other, "tensor<100xf32>")
    assert len(short_value(long, "tensor<100xf32>")) < 60


def test_weak_type_in_nested_regions_leaves_the_same_program():
    # MLIR numbers nested regions after their parent and reuses numbers in sibling regions (both branches
    # of a cond), so dropping a convert must renumber by scope, not by a single shift.
    from jax import lax

    def k(x, y):
        z = jnp.sin(x) * y
        z = lax.fori_loop(0, 5, lambda i, c: jnp.cos(c) * x + c, z)
        w = lax.cond(x > 0, lambda: z * x, lambda: z - x)
        return jnp.where(w > 0, w, x * 2.0)

    y = jnp.ones(3)
    weak_asm = jax.jit(k).lower(1.0, y).compiler_ir().operation.get_asm(enable_debug_info=False)
    assert weak_asm.count("stablehlo.convert %arg0 : tensor<f32>") >= 2  # in both branches of the cond
    assert _norm(k, 1.0, y).fingerprint == _norm(k, jnp.float32(1.0), y).fingerprint
    # and a real difference inside a branch still shows
    def k2(x, y):
        z = jnp.sin(x) * y
        z = lax.fori_loop(0, 5, lambda i, c: jnp.cos(c) * x + c, z)
        w = lax.cond(x > 0, lambda: z * x, lambda: z + x)
        return jnp.where(w > 0, w, x * 2.0)

    assert _norm(k2, 1.0, y).constants_blind_fingerprint != _norm(k, 1.0, y).constants_blind_fingerprint


def test_short_values_of_odd_types():
    assert short_value("0", "tensor<index>") == "0 : index"
    assert short_value("0x7F800000", "tensor<f32>") == "0x7F800000 : f32"  # inf, printed as bits
    assert short_value("true", "tensor<2x3xi1>") == "true : i1[2,3]"
