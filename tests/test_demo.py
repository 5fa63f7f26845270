"""`jitscope demo`: the gallery case studies run live; every lesson agrees with its own numbers."""

from __future__ import annotations

import inspect
import io
import json
import re

import pytest

from jitscope import demo
from jitscope.errors import UsageError
from jitscope.gallery import CASES, case_module
from jitscope.render import render
from jitscope.results import load_result
from jitscope.schema import validate


def steady(case, name):
    return case.compare.variant(name).steady.median


def fastest_name(case):
    ok = [v for v in case.compare.variants if v.ok]
    return min(ok, key=lambda v: v.steady.median).name


def tied_names(case):
    """The fastest variant and those compare's own rule cannot tell apart from it, fastest first."""
    from jitscope.analyze.compare import Costs, apart

    ok = sorted((v for v in case.compare.variants if v.ok), key=lambda v: v.steady.median)
    return [ok[0].name] + [v.name for v in ok[1:] if not apart(Costs.of(v), Costs.of(ok[0]))]


def versus_in(case, lesson, before, new, old, after):
    """The lesson's comparison of ``new`` with ``old`` matches compare's own noise verdict: "Nx faster/slower"
    (N >= 1, in the direction of the medians) when the two are apart, "within noise (Nx apart)" when not."""
    from jitscope.analyze.compare import Costs, apart

    r = case.compare
    ratio = steady(case, old) / steady(case, new)
    if apart(Costs.of(r.variant(new)), Costs.of(r.variant(old))):
        word = "faster" if ratio >= 1 else "slower"
        m = re.search(rf"{before} ([0-9.,]+)x {word}{after}", lesson)
    else:
        m = re.search(rf"{before} within noise \(([0-9.,]+)x apart\){after}", lesson)
    assert m, (before, new, old, lesson)
    assert float(m.group(1).replace(",", "")) >= 1  # "1.9x slower", never "0.53x slower"


def lead(names, what="fastest"):
    if len(names) == 1:
        return f"{names[0]} is {what}"
    return f"{', '.join(names[:-1])} and {names[-1]} are {what} (within noise of each other)"


def test_cli_quick_only_two_cases(cli, tmp_path):
    out = tmp_path / "demo.json"
    p = cli("demo", "--quick", "--only", "selu,lambda_cache", "--json", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    data = json.loads(out.read_text())
    validate(data)
    result = load_result(out)
    assert [c.name for c in result.cases] == ["selu", "lambda_cache"]
    assert result.quick and result.seconds > 0
    # each table and lesson is printed
    assert p.stdout.count("LESSON:") == 2
    flat = " ".join(p.stdout.split())
    for case in result.cases:
        assert case.title in p.stdout
        assert " ".join(case.lesson.split())[:60] in flat
        for v in case.compare.variants:
            assert v.name in p.stdout

    selu = result.case("selu")
    top = tied_names(selu)
    assert selu.facts["within_noise_of_fastest"] == top[1:]
    assert selu.lesson.startswith(f"{top[0]} wins" if len(top) == 1 else "eager and jit(selu) are within noise")
    speedup = steady(selu, "eager") / steady(selu, "jit(selu)")
    assert selu.facts["speedup_jit_vs_eager"] == pytest.approx(speedup)
    versus_in(selu, selu.lesson, r"against eager, jit\(selu\) is", "jit(selu)", "eager", " on")

    lam = result.case("lambda_cache")
    fresh, cached = lam.compare.variant("fresh lambda"), lam.compare.variant("cached function")
    # jit caches by function identity: the fresh lambda recompiles every iteration, the cached one never
    assert fresh.compiles_per_call == pytest.approx(20.0)
    assert cached.compiles_per_call == 0
    assert f"it compiled {fresh.compiles_per_call:.3g} times per loop vs {cached.compiles_per_call:.3g}" in lam.lesson
    ratio = fresh.steady.median / cached.steady.median
    assert ("slower" if ratio >= 1 else "faster") in lam.lesson

    # the console renderer works on the loaded result (no live objects)
    buf = io.StringIO()
    buf.write(render(result, "console", width=200))
    assert buf.getvalue().count("LESSON:") == 2


def test_scope_numerics_and_scaling_cases_agree_with_their_numbers(tmp_path):
    result = demo(only=["jit_scope", "float_simplify", "builtin_sum"], quick=True)
    assert result.ok, [c.error for c in result.cases]
    validate(result.to_dict())

    scope = result.case("jit_scope")
    assert [v.name for v in scope.compare.variants] == ["eager", "jit(f)", "jit(g)", "jit(both)"]
    top = tied_names(scope)
    assert scope.lesson.startswith(lead(top, "fastest per call"))
    assert scope.facts["jit_both_over_jit_g"] == pytest.approx(steady(scope, "jit(both)") / steady(scope, "jit(g)"))
    assert f"{scope.facts['jit_both_over_jit_g']:.2f}x jit(g)'s time" in scope.lesson
    outer = [n in ("jit(g)", "jit(both)") for n in top]
    assert ("as the article advises" in scope.lesson) == all(outer)
    assert ("unlike the article's advice" in scope.lesson) == (not any(outer))

    fs = result.case("float_simplify")
    diff = fs.compare.numerics[0]
    assert fs.facts["identical"] == (diff.max_abs_error == 0.0)
    if fs.facts["identical"]:
        assert "agree bit for bit" in fs.lesson
    else:
        assert "jit differs from eager" in fs.lesson
    rows = {r["variant"]: r for r in fs.rows}
    assert rows["eager"]["max_rel_vs_y"] > 0  # float32 x + y - x really loses y for x up to 1e6

    bs = result.case("builtin_sum")
    ns = [r["n"] for r in bs.rows]
    assert ns == sorted(ns) and len(ns) >= 3
    # builtin sum unrolls: equations grow linearly with N; jnp.sum is one reduce_sum whatever N
    # ~1 (0.9-1.0 at the quick sizes on JAX 0.11, whose unrolled sum is one add per element after one
    # unstack, so the fixed equations weigh more)
    assert 0.85 < bs.facts["exponent_eqns_builtin"] < 1.1
    assert abs(bs.facts["exponent_eqns_jnp"]) < 0.05
    assert all(r["eqns_builtin"] > r["eqns_jnp"] for r in bs.rows)
    assert f"N^{bs.facts['exponent_eqns_builtin']:.2f}" in bs.lesson
    assert f"{bs.rows[-1]['eqns_builtin']:,} equations" in bs.lesson
    # the demo's numbers are jitscope.scale's (the same equation count as `jitscope scale`/inspect)
    from jitscope import scale
    from jitscope.gallery import builtin_sum

    sc = {label: scale(make, ns, run=False) for label, make in (("builtin", builtin_sum.make_builtin),
                                                                ("jnp", builtin_sum.make_jnp))}
    for label, res in sc.items():
        assert [r[f"eqns_{label}"] for r in bs.rows] == [p.equations for p in res.points]
    assert bs.facts["exponent_eqns_builtin"] == pytest.approx(sc["builtin"].fit("equations").exponent)

    path = tmp_path / "d.json"
    result.save(path)
    assert load_result(path).to_dict() == result.to_dict()


def test_random_walk_lesson_names_the_fastest():
    case = case_module("random_walk").run(quick=True)
    assert case.lesson.startswith(lead(tied_names(case)))
    jt, py = steady(case, "jit(scan+vmap)"), steady(case, "python loops")
    assert case.facts["speedup_jit_vs_python"] == pytest.approx(py / jt)
    # every ratio the lesson quotes follows compare's own noise verdict (never "1.06x faster" beside a table
    # that calls the two within noise)
    versus_in(case, case.lesson, "jit\\(scan\\+vmap\\) is", "jit(scan+vmap)", "python loops", r" \(the article")
    versus_in(case, case.lesson, "lax.scan alone", "lax.scan", "python loops", ",")
    versus_in(case, case.lesson, "scan\\+vmap", "scan+vmap", "python loops", ";")
    versus_in(case, case.lesson, "vectorised NumPy is", "numpy vectorised", "jit(scan+vmap)", " on this machine")
    # the JAX variants draw the same numbers from the same key
    assert {d.candidate: d.status for d in case.compare.numerics} == {"scan+vmap": "equal", "jit(scan+vmap)": "equal"}
    # lax.scan without an outer jit is still compiled: not described as eager, and the lesson
    # quotes the measured first-call compiles of every JAX variant
    for name in ("lax.scan", "scan+vmap"):
        v = case.compare.variant(name)
        assert "compiled by lax.scan itself" in v.description and "eager" not in v.description
        assert v.compiles_first_call >= 1 and case.facts["compiles_first_call"][name] == v.compiles_first_call
    comp = case.facts["compiles_first_call"]
    assert f"{comp['lax.scan']} XLA compiles for lax.scan" in case.lesson
    assert f"scan+vmap {comp['scan+vmap']} (" in case.lesson and f"jit(scan+vmap) {comp['jit(scan+vmap)']} (" in case.lesson


def test_gallery_functions_are_importable():
    from jitscope.gallery import jit_scope, lambda_cache, random_walk, selu

    assert jit_scope.f(1.0) == pytest.approx(2 + 0.8414709848)
    assert lambda_cache.g_inner_jitted_normal(1.0) == 21
    assert random_walk.gaussian_random_walk_python(2, 3).shape == (2, 3)
    assert float(selu.selu(-1.0)) < 0
    assert CASES[0] == "selu" and len(CASES) == 7 and CASES[-1] == "fusion"


def test_fusion_case_lesson_matches_its_numbers(cli, tmp_path):
    out = tmp_path / "fusion.json"
    p = cli("demo", "--quick", "--only", "fusion", "--json", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    validate(json.loads(out.read_text()))
    case = load_result(out).case("fusion")
    f = case.facts
    flat = " ".join(p.stdout.split())
    assert " ".join(case.lesson.split())[:60] in flat

    # part 1: eager compiles one computation per primitive; jit one program with add+subtract fused
    eager, jitted = case.compare.variant("eager"), case.compare.variant("jit(fusion)")
    assert f["eager_compiles_first_call"] == eager.compiles_first_call == f["primitives"] == 2
    assert f["jit_compiles_first_call"] == jitted.compiles_first_call == 1
    assert f["fusions"] == 1 and f["fusion_ops"] == ["add+subtract"] and f["fused_ops"] == 2
    m = re.search(r"optimised HLO has (\d+) fusions? holding (\d+) ops", flat)
    assert m and (int(m.group(1)), int(m.group(2))) == (f["fusions"], f["fused_ops"])
    assert f"ran as {f['eager_compiles_first_call']} separately compiled XLA computations" in case.lesson
    # fusion never writes the intermediate a + b: 4 arrays touched instead of 6
    n_bytes = 4 * f["n"]
    assert f["bytes_accessed_jit"] == 4 * n_bytes and f["bytes_accessed_eager"] == 6 * n_bytes
    assert "the intermediate a + b is never written" in case.lesson
    assert f["speedup_jit_vs_eager"] == pytest.approx(eager.steady.median / jitted.steady.median)
    versus_in(case, case.lesson, "per call jit is", "jit(fusion)", "eager", " on")

    # part 2: x[x < 0] under jit is explained by analyze.tracer_errors, at the gallery's line
    from jitscope.gallery import fusion

    assert f["tracer_error_class"] == "NonConcreteBooleanIndexError"
    assert f["tracer_fix"].startswith("use jnp.where") and "jnp.where(mask, x, 0)" in f["tracer_fix_text"]
    assert "x[x < 0]" in f["tracer_error_source"]
    src, start = inspect.getsourcelines(fusion.get_negatives)
    line = start + next(i for i, text in enumerate(src) if "x[x < 0]" in text and "return" in text)
    assert f["tracer_error_where"] == f"fusion.py:{line}"
    assert f"NonConcreteBooleanIndexError at fusion.py:{line}" in case.lesson
    assert "NonConcreteBooleanIndexError" in p.stdout
    rows = {r["variant"]: r for r in case.rows}
    mask, fix = rows["eager x[x < 0].sum()"], rows["jit(jnp.where(x < 0, x, 0).sum())"]
    assert rows["jit(x[x < 0].sum())"]["steady_s"] is None
    assert f["mask_over_where_jit"] == pytest.approx(mask["steady_s"] / fix["steady_s"])
    if f["mask_where_apart"]:
        word = "faster" if f["mask_over_where_jit"] >= 1 else "slower"
        m = re.search(rf"under jit is ([0-9.,]+)x {word} against the eager boolean mask", case.lesson)
    else:
        m = re.search(r"under jit is within noise \(([0-9.,]+)x apart\) against the eager boolean mask", case.lesson)
    assert m and float(m.group(1).replace(",", "")) >= 1
    assert f["sums_agree"] and "the sums agree" in case.lesson
    assert f["sum_mask"] == pytest.approx(f["sum_where_jit"], rel=1e-5) and f["sum_mask"] < 0


def test_failed_case_is_recorded_and_others_run(monkeypatch):
    mod = case_module("float_simplify")

    def broken(quick=False):
        raise RuntimeError("case exploded\nmore")

    monkeypatch.setattr(mod, "run", broken)
    seen = []
    result = demo(only="float_simplify,selu", quick=True, on_case=lambda name, title: seen.append(name))
    assert [c.name for c in result.cases] == ["selu", "float_simplify"] == seen
    assert result.case("float_simplify").error == "RuntimeError: case exploded"
    assert result.case("selu").error is None and not result.ok
    validate(result.to_dict())


def test_unknown_case_is_a_usage_error(cli):
    with pytest.raises(UsageError, match="unknown case study 'nope'"):
        demo(only="selu,nope")
    p = cli("demo", "--only", "nope")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert "jitscope: unknown case study 'nope' (known: selu," in p.stderr


def test_html_option(cli, tmp_path):
    out = tmp_path / "d.html"
    p = cli("demo", "--quick", "--only", "float_simplify", "--html", str(out))
    assert p.returncode == 0, p.stderr
    assert "x + y - x" in out.read_text(encoding="utf-8")


def test_interrupt_keeps_finished_cases(monkeypatch):
    def stop(quick=False):
        raise KeyboardInterrupt

    monkeypatch.setattr(case_module("selu"), "run", stop)
    result = demo(only="float_simplify,selu,lambda_cache", quick=True)
    assert result.interrupted
    assert [c.name for c in result.cases] == []  # selu runs first in demo order
    monkeypatch.undo()
    monkeypatch.setattr(case_module("lambda_cache"), "run", stop)
    result = demo(only="float_simplify,selu,lambda_cache", quick=True)
    assert result.interrupted and [c.name for c in result.cases] == ["selu"]
    validate(result.to_dict())


def test_leaders_of_two_identical_programs_are_both_named():
    # Two identical jitted programs: no run can tell them apart, so the lesson names both (#14 item 4).
    import jax
    import jax.numpy as jnp

    from jitscope import compare
    from jitscope.gallery._common import leaders, leaders_phrase

    def f(x):
        return jnp.tanh(x) * 2.0

    def g(x):
        return jnp.tanh(x) * 2.0

    # timings on a shared 2-core machine: a burst of load can part two equal programs' intervals in one
    # run; a leaders() that names only the fastest fails all three
    runs = (compare({"a": jax.jit(f), "b": jax.jit(g)}, (jnp.ones(1000),), sample_seconds=0.2, min_samples=20)
            for _ in range(3))
    assert any(sorted(leaders(r)) == ["a", "b"] for r in runs)
    assert leaders_phrase(["a", "b"]) == "a and b are fastest (within noise of each other)"
    # and a clear winner stands alone: a 400x400 matmul against an elementwise tanh
    r2 = compare({"small": jax.jit(f), "big": jax.jit(lambda x: jnp.tanh(x @ x.T).sum())},
                 (jnp.ones((400, 400)),), sample_seconds=0.2, min_samples=10)
    assert leaders(r2) == ["small"] and leaders_phrase(leaders(r2)) == "small is fastest"


def test_articles_are_named_by_subject_never_by_file_name(monkeypatch, cli):
    """An outside user has no seed files: the demo names each article by its subject, in the terminal,
    the HTML, the JSON and --help (a file name such as ``003_5bc047ac44cc4edb.txt`` means nothing)."""
    from jitscope.gallery import ARTICLES

    file_name = re.compile(r"\b\d{3}_[0-9a-f]{8,}(\.txt)?\b|\bseeds?\b", re.I)
    for name in CASES:
        mod = case_module(name)
        assert mod.SEED in ARTICLES, name
        for text in (mod.TITLE, mod.SEED, mod.PUBLISHED):
            assert not file_name.search(text), (name, text)

    def broken(quick=False):  # no measuring: the case study's record carries the article as the demo prints it
        raise RuntimeError("not measured here")

    for name in CASES:
        monkeypatch.setattr(case_module(name), "run", broken)
    result = demo(quick=True)
    assert [c.seed for c in result.cases] == [case_module(n).SEED for n in CASES]
    console = render(result, "console", width=400)
    html = render(result, "html")
    shown = html.split('<script type="application/json"')[0]  # the page without its embedded JSON
    for text in (console, shown, json.dumps(result.to_dict()).replace('"seed":', '"article":')):
        assert not file_name.search(text), text[max(0, file_name.search(text).start() - 80):][:160]
    flat = " ".join(console.split())
    assert "(from the compile-time article (unrolled loops and builtin sum): N=1600" in flat
    assert "From the compile-time article (unrolled loops and builtin sum): N=1600" in html
    p = cli("demo", "--help")
    assert p.returncode == 0 and "five articles on jax.jit" in " ".join(p.stdout.split())
    assert not file_name.search(p.stdout), p.stdout
