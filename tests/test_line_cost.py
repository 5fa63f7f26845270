"""Compile cost per source line (analyze/line_cost.py, inspect's line_costs, --pprof): real JAX on CPU."""

from __future__ import annotations

import gzip

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.analyze.line_cost import hlo_ops_by_frames, line_costs, repeats
from jitscope.render import render
from jitscope.render.pprof import SAMPLE_TYPES, profile_bytes, write_pprof


@pytest.fixture(scope="module")
def program():
    import importlib
    import sys

    from conftest import FIXTURES

    # module-scoped, so set up before any function-scoped fixture: put tests/fixtures on the path itself
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    return importlib.import_module("line_cost_program")


@pytest.fixture(autouse=True)
def _fixtures(fixtures_on_path):
    yield


def _by_source(lines, text):
    [r] = [r for r in lines if r.source == text]
    return r


@pytest.fixture(scope="module")
def simulated():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
    import line_cost_program

    return jitscope.inspect(line_cost_program.simulate, jnp.ones(64, jnp.float32), jnp.ones(40, jnp.float32),
                            numerics=False, side_effects=False, sample_seconds=0.01)


def test_loop_line_gets_multiplicity_most_equations_and_largest_share(simulated):
    lines = simulated.line_costs
    loop = _by_source(lines, "acc = acc * 0.9 + jnp.sin(acc)")
    builtin = _by_source(lines, "total = sum(y)")
    assert lines[0] is loop  # costliest first
    assert loop.multiplicity == 300 and loop.equations == 900
    assert loop.hlo_ops >= 900 and loop.optimized_ops >= 300  # metadata survives lowering and XLA's passes
    # builtin sum over 40 elements: slice, squeeze, add per element up to JAX 0.10; JAX 0.11 unstacks once and
    # adds (the first add, of the literal 0, differs from the rest: 39 repeats of one add)
    assert (builtin.multiplicity, builtin.equations) in ((40, 120), (39, 41))
    assert loop.compile_share > builtin.compile_share > 0
    assert loop.compile_share == max(r.compile_share for r in lines)
    assert loop.equations == max(r.equations for r in lines)
    t = simulated.line_cost_totals
    assert t.estimate == "hlo_ops" and t.equations == simulated.jaxpr.equations
    assert sum(r.compile_share for r in lines) + t.unattributed_share == pytest.approx(1.0, abs=1e-9)
    assert t.unattributed_share < 0.05
    stage_s = sum(simulated.timings[s].median for s in ("trace", "lower", "compile"))
    assert t.seconds == pytest.approx(stage_s)
    assert sum(r.compile_seconds for r in lines) == pytest.approx(stage_s * (1 - t.unattributed_share), rel=1e-6)


def test_callees_count_in_the_calling_line(simulated):
    call = _by_source(simulated.line_costs, "return smooth(acc).sum() + total")
    inner = _by_source(simulated.line_costs, "return jnp.tanh(x) * 0.5 + x")
    assert inner.function == "smooth" and inner.equations == 3
    assert call.total_equations == call.equations + inner.equations
    assert call.total_compile_share == pytest.approx(call.compile_share + inner.compile_share)
    assert call.multiplicity == 1  # `a.sum() + b`: repeated primitives at different columns are no loop


def test_vectorised_function_has_no_false_dominant_line(program):
    w1, w2, x = jnp.ones((32, 64)), jnp.ones((64, 16)), jnp.ones((8, 32))
    res = jitscope.inspect(program.mlp, w1, w2, x, numerics=False, side_effects=False, sample_seconds=0.01)
    lines = res.line_costs
    assert {r.source.split(" =")[0] for r in lines} >= {"h", "out", "norm"}
    assert all(r.multiplicity == 1 for r in lines), [(r.line, r.multiplicity) for r in lines]
    assert max(r.compile_share for r in lines) < 0.6
    assert sum(r.compile_share for r in lines) + res.line_cost_totals.unattributed_share == pytest.approx(1.0)


def test_repeats():
    assert repeats([1, 2, 3] * 50) == 50
    assert repeats([9, 1, 2, 3] + [1, 2, 3] * 49) == 50  # a first iteration with one extra equation
    assert repeats([2, 3] + [1, 2, 3] * 49) == 50  # a first iteration missing one
    assert repeats([1, 2, 3, 4, 5, 6]) == 1
    assert repeats([1, 1, 1, 1, 2, 3, 4, 5, 6, 7]) == 1  # a short run at one end is not the line's pattern
    assert repeats([7]) == 1 and repeats([]) == 1


def test_hlo_frames_point_at_the_users_lines(program):
    tr = jax.jit(program.small).trace(jnp.ones(16))
    lowered = tr.lower()
    text = lowered.as_text(dialect="hlo", debug_info=True)
    ops = hlo_ops_by_frames(text)
    here = program.small.__code__.co_filename
    lines = {fr[2] for chain in ops for fr in chain[:1] if fr[0] == here}
    src = [ln.strip() for ln in open(here, encoding="utf-8")]
    assert src.index("acc = jnp.sin(acc) + x") + 1 in lines
    # frames are innermost first and reach the traced function's line through the caller chain
    assert all(isinstance(fr[2], int) for chain in ops for fr in chain)


def test_without_hlo_the_estimate_falls_back_to_equations(program):
    tr = jax.jit(program.small).trace(jnp.ones(16))
    lines, totals = line_costs(tr.jaxpr, program.small.__code__)
    assert totals.estimate == "equations" and totals.seconds == 0
    loop = _by_source(lines, "acc = jnp.sin(acc) + x")
    assert loop.multiplicity == 20 and loop.compile_share == pytest.approx(40 / totals.equations)
    assert _by_source(lines, "return acc.sum() + sum(x[:8])").multiplicity in (8, 7)  # 7 on JAX 0.11 (see above)


def test_console_shows_top_lines_with_numbers(simulated):
    text = render(simulated, "console")
    assert "compile cost per source line" in text
    row = next(ln for ln in text.splitlines() if "acc = acc * 0.9 + jnp.sin(acc)" in ln and "x300" in ln)
    assert "900" in row and "line_cost_program.py:17" in row


def test_html_listing_shows_the_file_with_numbers(simulated):
    html = render(simulated, "html")
    assert 'id="compile-cost-per-source-line"' in html and 'class="listing"' in html
    assert '<td class="ln">17</td>' in html and '<span class="mult">x300</span>' in html
    assert "<script>" not in html.split('id="compile-cost-per-source-line"')[1].split("</section>")[0]


def test_line_costs_survive_json(simulated, tmp_path):
    from jitscope.results import load_result
    from jitscope.schema import validate

    path = tmp_path / "r.json"
    simulated.save(path)
    import json

    validate(json.loads(path.read_text()))
    back = load_result(path)
    assert back.line_costs == simulated.line_costs and back.line_cost_totals == simulated.line_cost_totals
    assert render(back, "html") == render(simulated, "html")


# -- pprof: decoded by hand (no protobuf dependency) ------------------------------------------------

def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def _fields(buf: bytes) -> list[tuple[int, int | bytes]]:
    out, i = [], 0
    while i < len(buf):
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 2:
            n, i = _varint(buf, i)
            value, i = buf[i:i + n], i + n
        else:
            raise AssertionError(f"unexpected wire type {wire} for field {field}")
        out.append((field, value))
    return out


def _packed(data: bytes) -> list[int]:
    out, i = [], 0
    while i < len(data):
        v, i = _varint(data, i)
        out.append(v)
    return out


def _decode_profile(raw: bytes) -> dict:
    top = _fields(raw)
    strings = [v.decode() for f, v in top if f == 6]
    msg = lambda f: [dict(_fields(v)) | {"_all": _fields(v)} for ff, v in top if ff == f]  # noqa: E731
    return {"strings": strings, "sample_type": msg(1), "sample": msg(2), "location": msg(4), "function": msg(5),
            "default": dict(top).get(14)}


def test_pprof_round_trips(simulated, tmp_path):
    path = tmp_path / "cost.pb.gz"
    write_pprof(simulated, str(path))
    p = _decode_profile(gzip.decompress(path.read_bytes()))
    assert p["strings"][0] == "" and p["strings"][p["default"]] == "compile_time"
    assert [(p["strings"][t[1]], p["strings"][t[2]]) for t in p["sample_type"]] == list(SAMPLE_TYPES)
    functions = {f[1]: (p["strings"][f[2]], p["strings"][f[4]]) for f in p["function"]}
    locations = {}
    for loc in p["location"]:
        [line] = [dict(_fields(v)) for f, v in loc["_all"] if f == 4]
        locations[loc[1]] = (*functions[line[1]], line[2])
    totals = [0, 0, 0, 0]
    leaf_equations: dict[tuple, int] = {}
    for s in p["sample"]:
        ids, values = _packed(s[1]), _packed(s[2])
        assert all(i in locations for i in ids)
        totals = [a + b for a, b in zip(totals, values)]
        leaf_equations[locations[ids[0]]] = leaf_equations.get(locations[ids[0]], 0) + values[0]
    t = simulated.line_cost_totals
    assert totals[0] == sum(r.equations for r in simulated.line_costs)
    assert totals[1] == sum(r.hlo_ops for r in simulated.line_costs)
    file = simulated.line_costs[0].file
    assert leaf_equations[("simulate", file, 17)] == 900
    assert totals[3] == pytest.approx(t.seconds * 1e9 * (1 - t.unattributed_share), rel=1e-3)
    assert profile_bytes(simulated) == gzip.decompress(path.read_bytes())


def test_listing_renders_in_headless_chromium(tmp_path):
    """The gold page's listing, as chromium lays it out: rows, numbers, bars; a screenshot for a person."""
    import re
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from browser import dump_dom, screenshot

    from jitscope.results import load_result

    gold = Path(__file__).resolve().parent / "gold" / "inspect_lines.json"
    page = tmp_path / "lines.html"
    page.write_text(render(load_result(gold), "html"), encoding="utf-8")
    dom = dump_dom(page)
    section = dom.split('id="compile-cost-per-source-line"')[1].split("</section>")[0]
    rows = re.findall(r'<td class="ln">(\d+)</td>', section)
    assert "32" in rows and "33" in rows  # the loop body and the builtin sum, with their neighbours
    assert '<span class="mult">x20</span>' in section and '<span class="mult">x8</span>' in section
    assert re.search(r'<span style="width:\d+\.\d%"></span>', section)
    png = screenshot(page, tmp_path / "lines.png", size="1200,1600")
    assert png.stat().st_size > 10_000


def test_cli_writes_pprof_and_refuses_to_overwrite_the_program(cli, tmp_path):
    out = tmp_path / "prof" / "cost.pb.gz"
    p = cli("inspect", "line_cost_program:small", "--arg", "f32[16]", "--no-run", "--pprof", str(out))
    assert p.returncode == 0, p.stderr
    assert "compile cost per source line" in p.stdout and "x20" in p.stdout
    prof = _decode_profile(gzip.decompress(out.read_bytes()))
    assert prof["sample"] and "small" in prof["strings"]
    from conftest import FIXTURES

    target = FIXTURES / "line_cost_program.py"
    before = target.read_bytes()
    p = cli("inspect", "line_cost_program:small", "--arg", "f32[16]", "--no-run", "--pprof", str(target))
    assert p.returncode == 2 and "refusing to overwrite" in p.stderr
    assert target.read_bytes() == before


def test_shared_inner_jit_counts_per_call_and_lambda_lines_merge_in_the_listing(program):
    """An inner jit called in a loop is one HLO computation with N call sites: its ops count N times."""
    res = jitscope.inspect(program.calls_inner, jnp.ones(8), run=False, numerics=False, side_effects=False)
    inner = _by_source(res.line_costs, "return jax.nn.softmax(x) * 2.0")
    assert inner.multiplicity == 25 and inner.equations % 25 == 0
    assert inner.hlo_ops % 25 == 0 and inner.hlo_ops >= inner.equations  # not 1/25th of them
    assert res.line_costs[0] is inner
    scan = [r for r in res.line_costs if r.source.startswith("y = jax.lax.scan(")]
    assert sorted(r.function for r in scan) == ["calls_inner", "calls_inner.<locals>.<lambda>"]
    html = render(res, "html")
    row = next(tr for tr in html.split("<tr") if "y = jax.lax.scan(" in tr and 'class="ln"' in tr)
    assert f"<td class=\"num\">{sum(r.equations for r in scan):,}</td>" in row  # both functions' equations
