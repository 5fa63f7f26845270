"""watch's runtime findings (JWxxx): real programs under real jax.jit, in a subprocess and in-process.

tests/fixtures/watch_findings.py marks each expected finding with `# expect: CODE function` on the
line it must be reported at; tests/fixtures/watch_findings_clean.py holds look-alikes that must
trigger none. Slow compiles are tested with a lowered threshold, never with a timing assertion.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.jaxmodel import fixes
from jitscope.results import load_result
from jitscope.schema import validate

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAM = FIXTURES / "watch_findings.py"
CLEAN = FIXTURES / "watch_findings_clean.py"
ROOT = Path(__file__).resolve().parent.parent
THIS = Path(__file__).resolve()


def _expected() -> set[tuple[str, str, int]]:
    out = set()
    for i, line in enumerate(PROGRAM.read_text().splitlines(), 1):
        for code, fn in re.findall(r"# expect: (JW\d{3}) (\S+)", line):
            out.add((code, fn, i))
    return out


def _line(marker: str, path: Path = THIS) -> int:
    """The line of this file that ends with ``# <marker>``."""
    for i, text in enumerate(path.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return i
    raise AssertionError(marker)


def _found(findings, code=None) -> set[tuple[str, str, int]]:
    return {(f.code, f.function, f.location.line if f.location else 0) for f in findings
            if code is None or f.code == code}


@pytest.fixture(scope="module")
def program_run(tmp_path_factory):
    from conftest import run_cli

    d = tmp_path_factory.mktemp("findings")
    paths = {k: d / f"out.{k}" for k in ("json", "trace", "html")}
    p = run_cli("watch", "--json", str(paths["json"]), "--timeline", str(paths["trace"]), "--html", str(paths["html"]),
                "--slow-compile", "0.000001", str(PROGRAM))
    return p, paths


def test_every_finding_with_code_function_and_line(program_run):
    p, paths = program_run
    assert p.returncode == 0, p.stderr
    result = load_result(paths["json"])
    found = _found(result.findings)
    # Every expected finding is reported at its line; nothing else. The slow-compile threshold is lowered
    # to almost nothing, yet JW402 comes only for the one program of 200+ equations whose cost has a
    # cause shown (its unrolled loop): a small program is never a slow compile.
    assert _expected() <= found, sorted(_expected() - found)
    assert {f for f in found if f[0] != "JW402"} == {f for f in _expected() if f[0] != "JW402"}
    assert {f.function for f in result.findings if f.code == "JW402"} == {"unrolled"}
    # each finding states what it rests on, and how sure it is (runtime_codes: "Evidence and confidence")
    assert all(f.evidence and f.confidence in ("certain", "likely") for f in result.findings), \
        [(f.code, f.evidence, f.confidence) for f in result.findings if not f.evidence or not f.confidence]


def test_failed_trace_caught_by_the_program(program_run):
    _, paths = program_run
    result = load_result(paths["json"])
    (f,) = [f for f in result.findings if f.code == "JW101"]
    assert f.severity == "error" and f.details["error"] == "TracerBoolConversionError"
    assert f.fix is not None and "jnp.where" in f.fix.title
    assert f.compile_index is None and result.crash is None and result.exit_code == 0
    assert f.source == "if x > 0:  # expect: JW101 branchy"


def test_side_effects_once_per_trace(program_run):
    _, paths = program_run
    result = load_result(paths["json"])
    effects = {f.details["kind"]: f for f in result.findings if f.code == "JW201"}
    assert set(effects) == {"print", "logging", "stream", "container", "global", "nonlocal"}
    # noisy ran three times but traced once: one finding per effect, each counted once in that trace.
    assert all(f.details["count_per_trace"] == 1 for f in effects.values())
    assert effects["print"].fix.title == fixes.TRACE_PRINT.title  # one voice: jaxmodel/fixes.py
    assert effects["container"].details["detail"] == "history.append"
    assert effects["global"].details["detail"] == "calls"


def test_captured_stale_bloat_and_slow_compile_details(program_run):
    _, paths = program_run
    result = load_result(paths["json"])
    by_code = {f.code: f for f in result.findings if f.function in ("scaled", "unrolled")}
    cap = by_code["JW301"]
    assert cap.details["name"] == "W" and cap.details["bytes"] == 16384 * 4 and cap.details["type"] == "f32[16384]"
    assert by_code["JW302"].details["name"] == "W"
    bloat = by_code["JW401"]
    assert bloat.details["repeats"] == 1000 and bloat.details["kind"] == "python_loop"
    assert bloat.message.startswith(f"line {bloat.location.line}: Python loop x 1,000 = ")
    assert "fori_loop" in bloat.fix.title
    slow = [f for f in result.findings if f.code == "JW402" and f.function == "unrolled"][0]
    assert slow.details["cause"] == "unrolled" and "Python loop x 1,000" in slow.message
    assert slow.details["threshold_s"] == 0.000001
    # judged on the backend compile's CPU time, with the measurement stated
    assert slow.details["cpu_seconds"] > 0 and slow.details["equations"] >= 1000
    assert "of process CPU time" in slow.evidence and slow.confidence == "likely"
    assert slow.location == bloat.location and slow.fix == bloat.fix


def test_json_schema_trace_html_and_summary(program_run):
    p, paths = program_run
    data = json.loads(paths["json"].read_text())
    validate(data)
    assert data["findings"] and all(re.fullmatch(r"JW\d{3}", f["code"]) for f in data["findings"])
    events = json.loads(paths["trace"].read_text())["traceEvents"]
    instants = [e for e in events if e["ph"] == "i"]
    assert {e["args"]["code"] for e in instants} == {f["code"] for f in data["findings"]}
    assert all(e["cat"] == "finding" and e["ts"] >= 0 for e in instants)
    html = paths["html"].read_text()
    for code, name in (("JW101", "failed-trace"), ("JW201", "trace-side-effect"), ("JW401", "graph-bloat"),
                       ("JW501", "off-fast-path")):
        assert f'<section id="{code.lower()}-{name}">' in html
    assert "<pre>18: if x &gt; 0:  # expect: JW101 branchy</pre>" in html
    assert "Runtime findings, worst first" in p.stderr
    # worst first: the error group leads the block
    block = p.stderr.split("Runtime findings, worst first", 1)[1]
    assert block.lstrip().split("\n", 1)[1].lstrip().startswith("JW101 error branchy")


def test_look_alikes_trigger_nothing(cli, tmp_path):
    out = tmp_path / "clean.json"
    p = cli("watch", "--json", str(out), "--slow-compile", "0.000001", str(CLEAN))
    assert p.returncode == 0, p.stderr
    result = load_result(out)
    assert len(result.events) >= 5  # the look-alikes did compile (and padded recompiled for n=5)
    assert result.findings == []
    assert "Runtime findings" not in p.stderr


def test_findings_do_not_depend_on_machine_load(cli, tmp_path):
    """The clean programs give the same findings (none) idle and with every core busy: JW402 is judged on
    the backend compile's CPU time, which other processes' load leaves alone (its wall time doubles)."""
    import subprocess
    import sys

    def run(name: str) -> tuple:
        out = tmp_path / f"{name}.json"
        p = cli("watch", "--json", str(out), "--slow-compile", "0.000001", str(CLEAN))
        assert p.returncode == 0, p.stderr
        result = load_result(out)
        layered = [e for e in result.events if e.function == "layered"]
        assert len(layered) == 1 and layered[0].compile_cpu_seconds is not None
        return sorted((f.code, f.function, f.location.line if f.location else 0) for f in result.findings)

    idle = run("idle")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        loaded = run("loaded")
    finally:
        for b in busy:
            b.kill()
            b.wait()
    assert idle == loaded == []


def test_no_findings_flag(cli, tmp_path):
    out = tmp_path / "off.json"
    p = cli("watch", "--no-findings", "--json", str(out), "--slow-compile", "0.000001", str(PROGRAM))
    assert p.returncode == 0, p.stderr
    assert load_result(out).findings == []


# -- in-process: jitscope.watch ------------------------------------------------------------------

FACTOR = jnp.full((16384,), 3.0)  # 64 KiB: a constant JW301 reports (NOTABLE_CONSTANT_BYTES)
EFFECTS = FIXTURES / "watch_effects.py"


@pytest.fixture
def effects(fixtures_on_path):
    import watch_effects

    return watch_effects


def test_effects_in_a_same_module_helper_and_logging_module_function(effects):
    with jitscope.watch(slow_compile=600) as w:
        effects.outer(jnp.float32(1.0))
    found = _found(w.result().findings, "JW201")
    assert (("JW201", "outer", _line("helper-print", EFFECTS)) in found
            and ("JW201", "outer", _line("logging-call", EFFECTS)) in found), found


def test_effects_written_in_a_test_file_are_deliberate():
    """A trace counter or a print in a test file's jitted function is the test's point: no JW201, as lint's
    JS401/JS402 skip test files (one rule: jaxmodel/deliberate.py)."""
    traces = 0

    @jax.jit
    def counted(x):
        nonlocal traces
        traces += 1
        print("tracing", x)
        return x + 1

    with jitscope.watch(slow_compile=600) as w:
        counted(1.0)
    assert traces == 1 and [f.code for f in w.result().findings] == []


def test_closure_capture_and_rebinding_a_closure():
    weights = jnp.ones((128, 128))  # 64 KiB

    def make():
        @jax.jit
        def apply(x):
            return x @ weights  # closure-read

        return apply

    apply = make()
    with jitscope.watch(slow_compile=600) as w:
        apply(jnp.ones((2, 128)))
        weights = jnp.zeros((128, 128))  # noqa: F841 - rebinding the cell the closure reads
        apply(jnp.ones((2, 128)))
    found = {(f.code, f.location.line, f.details.get("source")) for f in w.result().findings}
    assert ("JW301", _line("closure-read"), "closure") in found
    assert ("JW302", _line("closure-read"), "closure") in found


def test_global_read_only_in_jitted_helper_is_not_stale_until_rebound():
    @jax.jit
    def times_factor(x):
        return x * FACTOR  # factor-read

    with jitscope.watch(slow_compile=600) as w:
        times_factor(jnp.ones(16384))
        times_factor(jnp.ones(16384))
    codes = [f.code for f in w.result().findings]
    assert codes == ["JW301"], codes  # captured, never rebound: not stale
    assert w.result().findings[0].location.line == _line("factor-read")


def test_analyses_run_only_on_traces_never_on_cache_hits(effects):
    f = effects.plus_one
    session = jitscope.watch(slow_compile=600)
    seen = []
    analyzer = session._session.analyzer
    original = analyzer.observe
    analyzer.observe = lambda event, kind, live: (seen.append(kind), original(event, kind, live))[1]
    x = jnp.ones(3)
    with session:
        for _ in range(200):
            f(x)
    assert seen == ["compile"]
    assert [f.code for f in session.result().findings] == ["JW201"]


def test_tracer_error_not_caught_is_a_crash_and_a_finding():
    @jax.jit
    def g(x):
        return jnp.ones(int(x))  # int-of-tracer

    with jitscope.watch(slow_compile=600) as w, pytest.raises(jax.errors.ConcretizationTypeError):
        g(3.0)
    (f,) = w.result().findings
    assert f.code == "JW101" and f.location.line == _line("int-of-tracer")


def test_no_recompile_runs_no_analysis():
    @jax.jit
    def h(x):
        print("trace")
        return x

    with jitscope.no_recompile(on_compile="warn") as guard, pytest.warns(jitscope.RecompileWarning):
        assert guard._session is not None and guard._session.analyzer is None
        h(1.0)
    with jitscope.watch(findings=False) as w:
        h(2.0)  # a new weak-typed value: cached, so trace a new function instead
        jax.jit(lambda x: print("trace") or x)(1.0)
    assert w._session.analyzer is None and w.result().findings == [] and w.result().events


# -- the catalog ---------------------------------------------------------------------------------

def test_every_runtime_code_has_a_page_and_docs_are_in_sync(cli):
    from jitscope.analyze.runtime_codes import CODES, SECTIONS, markdown
    from jitscope.analyze.runtime_findings import RuntimeFinding  # noqa: F401 - the record the codes label

    assert (ROOT / "docs" / "runtime-findings.md").read_text(encoding="utf-8") == markdown(), \
        "docs/runtime-findings.md is stale: run `jitscope rules --runtime --markdown > docs/runtime-findings.md`"
    assert {"JW101", "JW201", "JW301", "JW302", "JW401", "JW402", "JW501"} <= set(CODES)
    for code, c in CODES.items():
        assert re.fullmatch(r"JW\d{3}", code) and c.name and c.summary
        assert all((c.what, c.why, c.example, c.fix)), code
        assert f"### {code}" in markdown() and all(f"#### {s}" in markdown() for s in SECTIONS)
    listing = cli("rules")
    assert listing.returncode == 0 and "JS101" in listing.stdout and "JW201" in listing.stdout
    page = cli("rules", "jw401")
    assert page.returncode == 0 and "graph-bloat" in page.stdout and "## Use instead" in page.stdout
    bad = cli("rules", "JW999")
    assert bad.returncode == 2 and bad.stderr.strip() == \
        "jitscope: unknown runtime finding code 'JW999' (see `jitscope rules --runtime`)"


def test_each_closure_is_watched_on_its_own_cells(effects):
    first, second = effects.make_counter(), effects.make_counter()  # one code object, two closures
    with jitscope.watch(slow_compile=600) as w:
        first(1.0)
        second(1.0)
    found = [f for f in w.result().findings if f.code == "JW201"]
    assert [(f.details["kind"], f.location.line) for f in found] == [("nonlocal", _line("nonlocal-store", EFFECTS))] * 2


def test_stand_ins_print_through_and_are_removed_after_each_trace(capsys, effects):
    import builtins
    import sys

    root = logging.getLogger()
    before = (builtins.print, sys.stdout, sys.stderr, list(root.handlers))
    chatty = effects.chatty

    with jitscope.watch(slow_compile=600) as w:
        with pytest.raises(jax.errors.TracerBoolConversionError):
            chatty(1.0)
        during = (builtins.print, sys.stdout, sys.stderr, list(root.handlers))
    assert during == before  # between traces nothing of jitscope's is left in place
    out = capsys.readouterr().out
    assert "p-out\n" in out and "w-out\n" in out
    found = {(f.code, f.details.get("kind"), f.location.line) for f in w.result().findings}
    assert found == {("JW201", "print", _line("chatty-print", EFFECTS)),
                     ("JW201", "stream", _line("chatty-write", EFFECTS)), ("JW101", None, _line("chatty-branch", EFFECTS))}
