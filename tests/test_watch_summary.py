"""Fix pricing over constructed compile records: bucketing is offered only when it saves compiles."""

from __future__ import annotations

import pytest

from jitscope.analyze.watch_summary import persistent_cache_info, suggest_fixes
from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location, Reason


def _event(i: int, n: int, reason: str) -> CompileEvent:
    return CompileEvent("step", Location("train.py", 3), Location("train.py", 12),
                        ArgSignature((LeafSpec("[0][0]", (n,), "float32"),)), {"compile": 0.1},
                        Reason(reason), index=i)


def test_shape_fix_priced_by_buckets():
    sizes = [10, 11, 12, 13, 20]  # buckets 16, 16, 16, 16, 32: 2 compiles instead of 5
    evs = [_event(i, n, "first_compile" if i == 0 else "shape_change") for i, n in enumerate(sizes)]
    (fix,) = [f for f in suggest_fixes(evs) if "buckets" in f.title]
    assert fix.saving_compiles == 3
    assert abs(fix.saving_seconds - 0.3) < 1e-9
    assert "{16, 32}" in fix.description


def test_no_bucketing_fix_when_it_saves_nothing():
    evs = [_event(i, n, "first_compile" if i == 0 else "shape_change") for i, n in enumerate([10, 20, 40])]
    assert not [f for f in suggest_fixes(evs) if "buckets" in f.title]


DEF = Location("prog.py", 3)


def _ev(i: int, leaf: LeafSpec, cat: str, secs: float, fid: int = 1, static: dict | None = None,
        transform: str | None = None, site: int | None = None, **kw) -> CompileEvent:
    return CompileEvent("f", DEF, Location("prog.py", site or 10 + i), ArgSignature((leaf,), static or {}, "x: *"),
                        {"trace": secs / 2, "compile": secs / 2}, Reason(cat), index=i, function_id=fid,
                        transform=transform, **kw)


def _only(fixes, word: str):
    (fix,) = [f for f in fixes if f.title.startswith(word)]
    return fix


def test_new_function_object_saves_only_the_redundant_signatures():
    f3, f4 = LeafSpec("x", (3,), "float32"), LeafSpec("x", (4,), "float32")
    evs = [_ev(0, f3, "first_compile", 0.1, fid=1, site=11), _ev(1, f3, "new_function_object", 0.2, fid=2, site=11),
           _ev(2, f4, "new_function_object", 0.3, fid=3, site=11), _ev(3, f3, "new_function_object", 0.4, fid=4, site=11),
           # grad of the function is another program: one object would still compile it once
           _ev(4, f3, "first_compile", 0.8, fid=4, transform="grad", site=11)]
    fix = _only(suggest_fixes(evs), "Create the jitted")
    # one object compiles f32[3], f32[4] and grad(f32[3]) once each: #1 and #3 are the redundant ones
    assert fix.saving_compiles == 2 and abs(fix.saving_seconds - (0.2 + 0.4)) < 1e-9
    assert fix.location == Location("prog.py", 11)


def test_no_new_object_fix_when_each_call_site_jits_its_own():
    """#11: one test per call site, each jitting the function anew: "create it once" saves nothing."""
    f3 = LeafSpec("x", (3,), "float32")
    evs = [_ev(0, f3, "first_compile", 0.1, fid=1)] + [_ev(i, f3, "new_function_object", 0.2, fid=i + 1)
                                                        for i in range(1, 5)]
    assert not [f for f in suggest_fixes(evs) if f.title.startswith("Create")]


def test_no_new_object_fix_when_every_signature_differs():
    evs = [_ev(0, LeafSpec("x", (3,), "float32"), "first_compile", 0.1, fid=1),
           _ev(1, LeafSpec("x", (4,), "float32"), "new_function_object", 0.2, fid=2)]
    assert not [f for f in suggest_fixes(evs) if f.title.startswith("Create")]


def test_static_value_change_saves_every_static_recompile():
    x = LeafSpec("x", (3,), "float32")
    evs = [_ev(i, x, "first_compile" if i == 0 else "static_value_change", 0.1 * (i + 1), static={"n": str(i)})
           for i in range(4)]
    fix = _only(suggest_fixes(evs), "Stop recompiling")
    assert fix.saving_compiles == 3 and abs(fix.saving_seconds - (0.2 + 0.3 + 0.4)) < 1e-9


def test_dtype_and_weak_type_fixes_are_priced_separately():
    evs = [_ev(0, LeafSpec("x", (), "float32", weak_type=True), "first_compile", 0.1),
           _ev(1, LeafSpec("x", (), "float32"), "weak_type_change", 0.25),
           _ev(2, LeafSpec("x", (), "int32"), "dtype_change", 0.5),
           _ev(3, LeafSpec("x", (), "float16"), "dtype_change", 0.75)]
    fixes = suggest_fixes(evs)
    dtype, weak = _only(fixes, "Fix the dtype"), _only(fixes, "Pass")
    assert dtype.saving_compiles == 2 and abs(dtype.saving_seconds - 1.25) < 1e-9
    assert weak.saving_compiles == 1 and abs(weak.saving_seconds - 0.25) < 1e-9
    assert [f.title.split()[0] for f in fixes] == ["Fix", "Pass"]  # largest saving first


def test_persistent_cache_rerun_estimate_threshold_and_hits():
    x = LeafSpec("x", (3,), "float32")

    def comp(i, secs, hit):
        return CompileEvent("f", DEF, signature=ArgSignature((x,)), phases={"trace": 9.0, "compile": secs},
                            index=i, cache_hit=hit)

    evs = [comp(0, 0.5, False), comp(1, 1.5, False), comp(2, 2.0, True), comp(3, 3.0, None),
           CompileEvent("f", DEF, phases={"trace": 5.0}, index=4)]  # no backend compile: not cacheable
    info = persistent_cache_info(evs, True, "/c", 1.0, seconds_saved=1.9)
    # at or above 1 s and not already a hit: #1 and #3; trace seconds are not what the cache skips
    assert (info.rerun_cacheable_compiles, info.rerun_saving_seconds) == (2, 4.5)
    assert (info.hits, info.misses, info.seconds_saved) == (1, 2, 1.9)
    assert persistent_cache_info(evs, False, None, None, 0.0).rerun_cacheable_compiles == 2  # JAX's default 1 s
    zero = persistent_cache_info(evs, True, "/c", 0.0, 0.0)
    assert (zero.rerun_cacheable_compiles, zero.rerun_saving_seconds) == (3, 5.0)
    assert persistent_cache_info(evs, True, "/c", 1.5, 0.0).rerun_cacheable_compiles == 2  # "at or above"


def test_summary_omits_a_zero_rerun_saving_sentence():
    import io

    from jitscope.model import Environment
    from jitscope.render import render
    from jitscope.results.watch import WatchResult

    x = LeafSpec("x", (3,), "float32")
    hits = [CompileEvent("f", DEF, signature=ArgSignature((x,)), phases={"trace": 0.1, "compile": 0.2},
                         index=0, cache_hit=True, reason=Reason("first_compile", "first compile of f"))]
    out = []
    for evs in (hits, [CompileEvent("f", DEF, phases={"compile": 0.2}, index=0, cache_hit=False,
                                    reason=Reason("first_compile"))]):
        res = WatchResult(env=Environment(), events=evs, wall_seconds=1.0,
                          persistent_cache=persistent_cache_info(evs, True, "/c", 1.0, 0.0))
        buf = io.StringIO()
        buf.write(render(res, "console", width=300))
        out.append(buf.getvalue())
    # Warm (all hits): no "would save nothing ... threshold" contradiction, and no "saved 0 s".
    assert "the cache is warm (all 1 compiles were loaded from it)" in out[0]
    assert "would save nothing" not in out[0] and "would skip" not in out[0] and "0 s of backend" not in out[0]
    assert "1 hits (JAX reported no time saved: it keeps compile times in whole seconds)" in out[0]
    assert "saved 0" not in out[0]
    assert "would skip about 200 ms of backend compile" in out[1]


def test_persistent_cache_lines_on_cold_warm_and_disabled_caches():
    from jitscope.model import Environment
    from jitscope.render import render
    from jitscope.results.watch import WatchResult

    def run(enabled: bool, hit: bool | None, saved: float) -> str:
        evs = [CompileEvent("f", DEF, phases={"compile": 2.0}, index=0, cache_hit=hit,
                            reason=Reason("first_compile"))]
        res = WatchResult(env=Environment(), events=evs, wall_seconds=5.0,
                          persistent_cache=persistent_cache_info(evs, enabled, "/c" if enabled else None,
                                                                 1.0, saved))
        return " ".join(render(res, "console", width=400).split())

    cold = run(True, False, 0.0)
    assert "0 hits saved 0 s, 1 misses" in cold or "0 hits saved 0 ms, 1 misses" in cold
    assert "On a rerun with a warm cache: 1 compiles" in cold and "saving about 2" in cold
    warm = run(True, True, 1.9)
    assert "1 hits saved 1.9" in warm and "the cache is warm" in warm and "would load" not in warm
    off = run(False, None, 0.0)
    assert "Persistent compilation cache: off" in off
    assert "On a rerun with the cache on and warm: 1 compiles" in off


def test_many_recompiles_are_summarised_by_function_and_cause_in_few_lines():
    """#11: one line per (function, cause) with counts, seconds and sites; fixes before the evidence."""
    import jax
    import jax.numpy as jnp

    import jitscope

    f = jax.jit(lambda x: x * 2)
    g = jax.jit(lambda x, k: x * k, static_argnums=1)
    # findings off: the static k only sets a constant, so g's recompiles carry a JW404 block (right, and
    # tested in test_watch_duplicates.py) that is not what this test counts (the compile lines)
    with jitscope.watch(explain=False, findings=False) as w:
        for n in range(1, 101):
            f(jnp.ones(n))
        for k in range(20):
            g(jnp.ones(3), k)
    text = w.summary
    assert len(w.events) == 120
    assert len(text.strip().splitlines()) <= 30, text
    assert "shape_change x99" in text and "static_value_change x19" in text
    assert text.index("Fixes, largest saving") < text.index("Recompiles, by function and cause")


def _many_functions_result(n_functions: int = 30, per_function: int = 34):
    """1,000-odd compiles over many functions and every fixable cause, as records."""
    from jitscope.analyze.watch_summary import plan_fixes, summarize_functions
    from jitscope.model import Environment
    from jitscope.results.watch import WatchResult

    causes = ["shape_change", "static_value_change", "dtype_change", "weak_type_change", "new_function_object"]
    events = []
    for f in range(n_functions):
        cause = causes[f % len(causes)]
        for i in range(per_function):
            n, static, dtype, weak, fid = 3, {}, "float32", False, 1
            if cause == "shape_change":
                n = 3 + i
            elif cause == "static_value_change":
                static = {"k": str(i)}
            elif cause == "dtype_change":
                dtype = ("float32", "int32", "float16")[i % 3]
            elif cause == "weak_type_change":
                weak = bool(i % 2)
            else:
                fid = i + 1
            events.append(CompileEvent(
                f"fn{f}", Location("prog.py", 10 * f), Location("prog.py", 10 * f + 5),
                ArgSignature((LeafSpec("x", (n,), dtype, weak),), static, "x: *"), {"compile": 0.01},
                Reason("first_compile" if i == 0 else cause, f"x: changed {i}"), index=len(events),
                function_id=fid))
    plan = plan_fixes(events)
    return WatchResult(env=Environment(), events=events, wall_seconds=20.0,
                       functions=summarize_functions(events, 20.0), fixes=plan.fixes, fixes_total=plan.total)


def test_a_thousand_compiles_over_thirty_functions_fit_in_thirty_lines():
    """#11: the summary does not grow with compiles or functions; the rest is in the JSON."""
    from jitscope.render import render

    result = _many_functions_result()
    assert len(result.events) == 1020 and len(result.functions) == 30
    text = render(result, "console", width=120)
    assert len(text.strip().splitlines()) <= 30, text
    assert "... 25 more" in text and "more fixes" in text and "more groups" in text
    assert text.index("Fixes, largest saving") < text.index("Recompiles, by function and cause")
    assert "All " in text and " fixes applied" in text


@pytest.mark.slow
def test_a_program_with_a_thousand_compiles_is_summarised_in_thirty_lines():
    import jax
    import numpy as np

    import jitscope

    f = jax.jit(lambda x: x * 2)
    g = jax.jit(lambda x, k: x * k, static_argnums=1)
    # findings off: on a loaded machine one of these tiny compiles can pass 1 s and add a JW402 block, and
    # the static k only sets a constant (a JW404 block): right, but not what this test counts (the compile lines)
    with jitscope.watch(explain=False, findings=False) as w:
        for n in range(1, 801):
            f(np.ones(n, np.float32))
        for k in range(200):
            g(np.ones(3, np.float32), k)
    assert len(w.events) == 1000
    text = w.summary
    assert len(text.strip().splitlines()) <= 30, text
    assert "shape_change x799" in text and "static_value_change x199" in text
    assert "All 2 fixes applied: 988 compiles fewer" in text
