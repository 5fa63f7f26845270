"""The pure analyzers: reason classification and fixes priced from records (no JAX needed)."""

from __future__ import annotations

from jitscope.analyze.reasons import classify, explain_all, signature_diffs
from jitscope.analyze.watch_summary import persistent_cache_info, suggest_fixes, summarize_functions
from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location, Reason

DEF = Location("prog.py", 3, function="f")


def ev(i, *leaves, static=None, tree="x: PyTreeDef(*)", fid=1, secs=0.1, fn="f", compile_s=None):
    sig = ArgSignature(tuple(leaves), static or {}, tree)
    phases = {"trace": secs / 2, "compile": compile_s if compile_s is not None else secs / 2}
    return CompileEvent(fn, DEF, Location("prog.py", 10 + i), sig, phases, index=i, function_id=fid)


def leaf(shape, dtype="float32", weak=False, path="x", sharding=None):
    return LeafSpec(path, tuple(shape), dtype, weak, sharding)


def test_precedence_and_detail_lists_every_difference():
    a = ArgSignature((leaf([3]), leaf([2], path="y")), {"n": "2"}, "x: *\ny: *")
    b = ArgSignature((leaf([4]), leaf([2], "int32", path="y")), {"n": "2"}, "x: *\ny: *")
    d = signature_diffs(a, b)
    assert d == {"shape_change": ["x: f32[3] -> f32[4]"], "dtype_change": ["y: f32[2] -> i32[2]"]}
    r = classify(CompileEvent("f", DEF, signature=b, index=1, function_id=1),
                 [CompileEvent("f", DEF, signature=a, index=0, function_id=1)])
    assert r.category == "shape_change" and r.detail == "x: f32[3] -> f32[4]; also y: f32[2] -> i32[2]"


def test_compares_with_the_closest_previous_signature():
    events = [ev(0, leaf([3])), ev(1, leaf([3], weak=True)), ev(2, leaf([3], sharding="dev1"))]
    reasons = explain_all(events)
    assert [r.category for r in reasons] == ["first_compile", "weak_type_change", "sharding_change"]
    assert reasons[2].detail.startswith("x: uncommitted -> dev1 (committed vs uncommitted")


def test_new_object_identity_hash_and_other_keep_jax_text():
    e0, e1 = ev(0, leaf([3])), ev(1, leaf([3]), fid=2)
    assert classify(e1, [e0]).category == "new_function_object"
    s0 = ev(0, leaf([3]), static={"cfg": "<C object at 0x1, hashed by identity>"})
    s1 = ev(1, leaf([3]), static={"cfg": "<C object at 0x2, hashed by identity>"})
    assert classify(s1, [s0]).category == "static_unhashable"
    again = ev(1, leaf([3]))
    again.reason = Reason("other", "", "TRACING CACHE MISS ... Tracing context doesn't match")
    r = classify(again, [e0])
    assert r.category == "other" and "tracing context" in r.detail and r.explanation.startswith("TRACING")


def test_shape_fix_buckets_and_saving():
    sizes = [3, 5, 6, 7, 9, 12, 17]
    events = [ev(i, leaf([n, 8]), secs=0.2) for i, n in enumerate(sizes)]
    for e, r in zip(events, explain_all(events), strict=True):
        e.reason = r
    fixes = suggest_fixes(events)
    pad = next(f for f in fixes if f.title.startswith("Pad"))
    # buckets 4, 8, 16, 32 cover the 7 sizes: 4 compiles instead of 7
    assert "4 compiles instead of 7" in pad.title and "{4, 8, 16, 32}" in pad.description
    assert "axis 1" not in pad.description  # the fixed axis is left alone
    assert pad.saving_compiles == 3 and abs(pad.saving_seconds - 3 * 0.2) < 1e-9


def test_function_summary_and_cache_rerun_estimate():
    events = [ev(0, leaf([1]), secs=1.0, compile_s=2.0), ev(1, leaf([2]), secs=0.2),
              ev(2, leaf([1]), fn="g", secs=0.1)]
    for e, r in zip(events, explain_all(events), strict=True):
        e.reason = r
    fs = summarize_functions(events, wall_seconds=10.0)
    assert [f.function for f in fs] == ["f", "g"] and fs[0].compiles == 2
    assert fs[0].reasons == {"first_compile": 1, "shape_change": 1} and abs(fs[0].share_of_wall - 0.27) < 1e-9
    info = persistent_cache_info(events, enabled=False, directory=None, min_compile_seconds=1.0, seconds_saved=0.0)
    assert info.rerun_cacheable_compiles == 1 and info.rerun_saving_seconds == 2.0


def test_transformed_compiles_have_their_own_history():
    plain, grad1, vmap1, grad2 = ev(0, leaf([3])), ev(1, leaf([3])), ev(2, leaf([3])), ev(3, leaf([4]))
    grad1.transform, vmap1.transform, grad2.transform = "grad", "vmap", "grad"
    reasons = explain_all([plain, grad1, vmap1, grad2])
    assert [r.category for r in reasons] == ["first_compile", "first_compile", "first_compile", "shape_change"]
    assert reasons[1].detail == "first compile of f under a transformation (grad)"
    assert reasons[3].detail == "x: f32[3] -> f32[4]"  # compared with grad1, not with the plain compile
    again = ev(4, leaf([4]))
    assert classify(again, [plain, grad1, vmap1, grad2]).detail == "x: f32[3] -> f32[4]"


def test_another_wrapper_is_another_program_and_other_options_are_named():
    pm, fpm, pm2 = ev(0, leaf([1, 3])), ev(1, leaf([1, 3])), ev(2, leaf([1, 3]))
    pm.wrapper, fpm.wrapper, pm2.wrapper = "jax.pmap", "equinox.filter_pmap", "jax.pmap"
    reasons = explain_all([pm, fpm])
    assert reasons[1] == Reason("first_compile", "first compile of f under equinox.filter_pmap", "")
    pm2.signature = ArgSignature(pm.signature.leaves, {}, pm.signature.treedef, options={"donate_argnums": "(0,)"})
    detail = classify(pm2, [pm, fpm]).detail
    assert detail.startswith("jit options differ (donate_argnums: (none) -> (0,))")


def test_static_none_to_a_value_is_a_value_change():
    from jitscope.collect.watch_signature import static_repr

    a, b = ev(0, leaf([3]), static={"n": static_repr(None)}), ev(1, leaf([3]), static={"n": static_repr(2)})
    assert classify(b, [a]) == Reason("static_value_change", "n: None -> 2", "")


def test_pytree_nodes_name_the_changed_node_in_one_line():
    nodes_a = {"m": "M[1] ('lin',)", "m.w": "dict[1] ['k']"}
    nodes_b = {"m": "M[1] ('tanh',)", "m.w": "dict[2] ['k', 'v']"}
    a = ev(0, leaf([3], path="m.w['k']"), tree="m: PyTreeDef(M[('lin',)])")
    b = ev(1, leaf([3], path="m.w['k']"), tree="m: PyTreeDef(M[('tanh',)])")
    a.signature = ArgSignature(a.signature.leaves, {}, a.signature.treedef, nodes=nodes_a)
    b.signature = ArgSignature(b.signature.leaves, {}, b.signature.treedef, nodes=nodes_b)
    assert signature_diffs(a.signature, b.signature) == {"pytree_change": ["m (M): static data 'lin' -> 'tanh'"]}
    multi = "model: PyTreeDef(CustomNode(G[GraphDef(\n  a=1\n)], [*]))\nx: PyTreeDef(*)"
    c = ev(2, leaf([3]), tree=multi)
    d = ev(3, leaf([3]), tree=multi.replace("a=1", "a=2"))
    diffs = signature_diffs(c.signature, d.signature)["pytree_change"]
    assert len(diffs) == 1 and diffs[0].startswith("model: ") and "(absent)" not in diffs[0]  # older files


def test_static_floats_are_shown_at_the_precision_that_tells_them_apart():
    """Float noise such as -0.0014699999999999997 is printed as -0.00147; values that differ far down keep
    the digits that differ (and the reason comes from a real recompile under jax.jit)."""
    import functools

    import jax
    import jax.numpy as jnp

    import jitscope
    from jitscope.analyze.reasons import readable_pair

    assert readable_pair("-0.0014699999999999997", "0.002") == ("-0.00147", "0.002")
    assert readable_pair("0.1", "0.10000000000000002") == ("0.1", "0.10000000000000002")
    assert readable_pair("3", "4") == ("3", "4") and readable_pair("'a'", "'b'") == ("'a'", "'b'")

    @functools.partial(jax.jit, static_argnums=1)
    def scale(x, s):
        return x * s

    with jitscope.watch() as w:
        scale(jnp.ones(2), 0.1 - 0.10147)
        scale(jnp.ones(2), 0.002)
    (rec,) = w.result().recompiles
    assert rec.reason.category == "static_value_change" and rec.reason.detail == "s: -0.00147 -> 0.002", rec.reason
