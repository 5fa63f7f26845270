"""The self-contained HTML report, rendered from real results and checked in headless chromium."""

from __future__ import annotations

import json
import re

import jax
import jax.numpy as jnp
import pytest
from browser import dump_dom, screenshot

import jitscope
from jitscope.render.console import fmt_seconds
from jitscope.render.html import render
from jitscope.render.html.svg import bar_chart, loglog_chart


@pytest.fixture(scope="module")
def watch_result():
    @jax.jit
    def step(x):
        return x * 2 + jnp.sin(x)

    with jitscope.watch(print_summary=False) as w:
        for n in (3, 4, 5):
            step(jnp.ones(n))
    return w.result()


def test_html_is_self_contained_and_embeds_the_numbers(watch_result):
    html = render(watch_result)
    assert html.startswith("<!DOCTYPE html>")
    # Nothing is fetched: no external scripts, stylesheets, images or fonts.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "<script src" not in html and "@import" not in html
    data = json.loads(re.search(r'<script type="application/json" id="jitscope-data">(.*?)</script>',
                                html, re.S).group(1))
    assert data["kind"] == "watch" and len(data["events"]) == 3


def test_browser_renders_sections_and_one_span_per_compile(watch_result, tmp_path):
    page = tmp_path / "watch.html"
    page.write_text(render(watch_result))
    dom = dump_dom(page)
    for title in ("Compiles per function", "Timeline", "Recompiles"):
        assert title in dom
    timeline = dom.split('id="timeline"', 1)[1].split("</section>", 1)[0]
    assert timeline.count("<rect") == len(watch_result.events) == 3
    assert "shape change" in dom and "x: f32[3] -&gt; f32[4]" in dom
    png = screenshot(page, tmp_path / "watch.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_command_converts_saved_json(watch_result, tmp_path, cli):
    saved = tmp_path / "w.json"
    watch_result.save(saved)
    proc = cli("report", str(saved), "-o", str(tmp_path / "w.html"))
    assert proc.returncode == 0, proc.stderr
    assert "Compiles per function" in (tmp_path / "w.html").read_text()
    proc = cli("report", str(saved))
    assert proc.returncode == 0 and "3 compiles" in proc.stdout
    proc = cli("report", str(saved), "--format", "json")
    assert json.loads(proc.stdout) == watch_result.to_dict()


def test_charts_scale_bars_and_drop_nonpositive_points():
    svg = bar_chart(["a", "b"], [1.0, 2.0])
    widths = [float(w) for w in re.findall(r'<rect x="\d+" y="[\d.]+" width="([\d.]+)"', svg)]
    assert len(widths) == 2 and widths[1] == pytest.approx(2 * widths[0], rel=1e-3)
    assert "n/a" in bar_chart(["a"], [None])
    svg = loglog_chart({"s": [(100, 1.0), (200, 4.0), (400, 0.0)]})
    assert svg.count("<circle") == 2


def test_compare_and_demo_layouts_in_the_browser(tmp_path):
    import numpy as np

    from jitscope.model import Environment
    from jitscope.results.demo import CaseStudy, Column, DemoResult

    def f(x):
        return jnp.sin(x) * 2 + x

    x = jnp.linspace(0, 1, 1000)
    cmp = jitscope.compare({"eager": f, "jit": jax.jit(f)}, (x,), sample_seconds=0.05, min_samples=3)
    rows = [{"n": n, "eqns": 3 * n, "secs": 1e-4 * n} for n in (10, 20, 40)]
    case = CaseStudy("growth", "Growth", seed="003", published="grows", lesson="grew as measured",
                     compare=cmp, columns=[Column("n", "N", "int"), Column("eqns", "eqns", "int"),
                                           Column("secs", "seconds", "s")], rows=rows)
    demo = DemoResult(cases=[case], env=Environment.capture())
    page = tmp_path / "demo.html"
    page.write_text(render(demo))
    dom = dump_dom(page)
    assert "1. Growth" in dom and "Lesson (from this run's numbers): grew as measured" in dom
    # Two bar charts (steady, first call) of two variants, two log-log charts of 3 points (seconds, count).
    section = dom.split('id="1-growth"', 1)[1]
    assert section.count("Steady-state time per call") == 1
    assert section.count("<circle") == 6
    eager = cmp.variant("eager").steady.median
    assert fmt_seconds(eager) in dom
    assert np.isfinite(eager)
    page2 = tmp_path / "compare.html"
    page2.write_text(render(cmp))
    assert "Recommendation" in dump_dom(page2)


def _loop_sum(n):
    def f(x):
        return sum(x[i] * 2.0 for i in range(n))

    return f, (jnp.arange(n, dtype=jnp.float32),)


def test_inspect_and_scale_layouts_in_the_browser(tmp_path):
    fn, args = _loop_sum(64)
    result = jitscope.inspect(fn, *args, side_effects=False)
    page = tmp_path / "inspect.html"
    page.write_text(render(result))
    dom = dump_dom(page)
    bloat = dom.split('id="graph-bloat"', 1)[1].split("</section>", 1)[0]
    assert ">64<" in bloat  # the repeat count measured on this jaxpr
    assert "Compiled program" in dom and "Findings" in dom

    scaled = jitscope.scale(_loop_sum, [8, 16, 32], run=False)
    page = tmp_path / "scale.html"
    page.write_text(render(scaled))
    dom = dump_dom(page)
    growth = dom.split('id="growth-fits', 1)[1].split("</section>", 1)[0]
    eq_fit = scaled.fits["equations"]
    assert f"{eq_fit.exponent:.2f}" in growth and eq_fit.exponent > 0.8
    # One marker per measured size on each stage series and on the equation-count series.
    assert dom.count("<circle") >= 3 * 2


def test_lint_result_as_html_and_sarif_through_report(tmp_path, cli):
    src = tmp_path / "m.py"
    src.write_text("import jax\n\n@jax.jit\ndef f(x: jax.Array):\n    print(x)\n    return sum(x)\n")
    saved = tmp_path / "lint.json"
    proc = cli("lint", str(src), "--json", str(saved))
    assert proc.returncode == 1, proc.stderr
    assert cli("report", str(saved), "-o", str(tmp_path / "lint.html")).returncode == 0
    dom = dump_dom(tmp_path / "lint.html")
    findings = dom.split('id="findings"', 1)[1].split("</section>", 1)[0]
    assert "JS401" in findings and "JS201" in findings and "m.py:5" in findings and "m.py:6" in findings
    assert cli("report", str(saved), "-o", str(tmp_path / "lint.sarif")).returncode == 0
    sarif = json.loads((tmp_path / "lint.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"JS401", "JS201"}


def test_user_text_cannot_break_out_of_the_page_or_the_embedded_json(tmp_path):
    pkg = tmp_path / "pkg"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text(
            "import jax\n\n@jax.jit\ndef f(x):\n    print('<!--<script></script><b>&amp;')\n    return x\n")
    result = jitscope.lint([str(pkg)], jobs=1)
    assert len(result.findings) == 2
    page = tmp_path / "lint.html"
    html = render(result)
    page.write_text(html)
    raw = html.split('id="jitscope-data">', 1)[1].rsplit("</script>", 1)[0]
    assert "<" not in raw and "\\u003c!--\\u003cscript" in raw  # nothing that can end or re-open the script
    dom = dump_dom(page)
    # The embedded JSON survives the browser's parser intact (nothing in it closed the script early).
    data = re.search(r'<script type="application/json" id="jitscope-data">(.*?)</script>', dom, re.S).group(1)
    assert json.loads(data) == json.loads(json.dumps(result.to_dict()))
    assert "<b>" not in dom.split('id="jitscope-data"')[0]  # user text is escaped in the page body
    # Same-named files in different folders stay distinguishable.
    assert "a/__init__.py:5" in dom and "b/__init__.py:5" in dom


@pytest.mark.parametrize("command", ["compare", "inspect", "scale", "lint", "watch"])
def test_every_measuring_command_writes_html_directly(cli, tmp_path, command):
    prog = tmp_path / "prog.py"
    prog.write_text("import jax\nimport jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x) * 2\n\n\n"
                    "def make(n):\n    return f, (jnp.ones(n),)\n\n\n"
                    "@jax.jit\ndef g(x):\n    print(x)\n    return x\n\n\nif __name__ == '__main__':\n"
                    "    g(jnp.ones(3))\n    g(jnp.ones(4))\n")
    out = tmp_path / "out" / f"{command}.html"
    args = {"compare": ["compare", f"{prog}:f", "--arg", "f32[8]", "--sample-seconds", "0.01"],
            "inspect": ["inspect", f"{prog}:f", "--arg", "f32[8]", "--sample-seconds", "0.01"],
            "scale": ["scale", f"{prog}:make", "--sizes", "4,8,16", "--sample-seconds", "0.01"],
            "lint": ["lint", str(prog)],
            "watch": ["watch", "--html", str(out), str(prog)]}[command]
    if command != "watch":
        args += ["--html", str(out)]
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == (1 if command == "lint" else 0), proc.stderr  # lint: the print in g is a finding
    html = out.read_text()
    data = json.loads(re.search(r'id="jitscope-data">(.*?)</script>', html, re.S).group(1))
    assert data["kind"] == command
    assert f"jitscope {command} report" in html
