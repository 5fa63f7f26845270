"""`jitscope watch` end to end: real scripts in subprocesses, every reason category, exit codes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jax
import pytest

import jitscope
from jitscope.collect.watch import read_events
from jitscope.results import load_result
from jitscope.schema import validate

FIXTURES = Path(__file__).parent / "fixtures"
REASONS = FIXTURES / "watch_reasons.py"
EXIT = FIXTURES / "watch_exit.py"


def _expectations() -> list[tuple[int, str, str]]:
    """(line, category, function) from the fixture's `# expect:` comments, in order."""
    out = []
    for i, line in enumerate(REASONS.read_text().splitlines(), 1):
        m = re.search(r"# expect: (\w+) (\S+)", line)
        if m:
            out.append((i, m.group(1), m.group(2)))
    return out


@pytest.fixture(scope="module")
def reasons_run(tmp_path_factory):
    from conftest import run_cli

    d = tmp_path_factory.mktemp("watch")
    paths = {k: d / f"out.{k}" for k in ("jsonl", "json", "trace")}
    p = run_cli("watch", "--events", str(paths["jsonl"]), "--json", str(paths["json"]),
                "--timeline", str(paths["trace"]), str(REASONS))
    return p, paths


def test_every_reason_category_with_function_and_line(reasons_run):
    p, paths = reasons_run
    assert p.returncode == 0, p.stderr
    events = read_events(paths["jsonl"])
    got = [(e.call_site.line if e.call_site else None, e.reason.category, e.function.rsplit(".", 1)[-1])
           for e in events]
    want = []
    for line, cat, fn in _expectations():
        # the lambda line runs three times: one first compile, then two new function objects
        if cat == "new_function_object":
            want += [(line, "first_compile", fn), (line, cat, fn), (line, cat, fn)]
        else:
            want.append((line, cat, fn))
    assert got == want
    from jitscope.model import REASON_CATEGORIES

    assert {c for _, c, _ in got} == set(REASON_CATEGORIES)
    for e in events:
        assert e.definition is not None and e.definition.file.endswith("watch_reasons.py")
        assert set(e.phases) >= {"compile"} and all(v >= 0 for v in e.phases.values())


def test_reason_details_name_the_argument(reasons_run):
    _, paths = reasons_run
    by_cat: dict = {}
    for e in read_events(paths["jsonl"]):
        by_cat.setdefault(e.reason.category, e.reason)
    assert by_cat["shape_change"].detail == "x: f32[3] -> f32[4]"
    assert by_cat["dtype_change"].detail == "x: f32[4] -> i32[4]"
    assert by_cat["weak_type_change"].detail.startswith("x: ~f32[] -> f32[]")
    assert by_cat["static_value_change"].detail == "n: 2 -> 3"
    assert "cfg:" in by_cat["static_unhashable"].detail and "hashed by identity" in by_cat["static_unhashable"].detail
    assert by_cat["pytree_change"].detail == "d: keys ['a'] -> ['a', 'b']"  # named node by node
    assert "SingleDeviceSharding(cpu:1)" in by_cat["sharding_change"].detail
    # `other` keeps JAX's own explain_cache_misses text
    assert "TRACING CACHE MISS" in by_cat["other"].explanation


def test_json_result_trace_and_summary(reasons_run):
    p, paths = reasons_run
    result = load_result(paths["json"])
    validate(result.to_dict())
    assert len(result.events) == len(read_events(paths["jsonl"]))
    assert result.exit_code == 0 and result.internal_compiles > 0  # jnp.ones(5) * 3 is JAX-internal
    jax_dir = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep  # not "jax" in the path: a checkout may be named so
    assert all(not os.path.abspath(e.definition.file).startswith(jax_dir) for e in result.events if e.definition)
    assert result.functions[0].function == "scale" and result.functions[0].compiles == 7
    cats_fixed = {f.title.split()[0] for f in result.fixes}
    assert {"Pad", "Create", "Fix", "Stop", "Pass", "Keep", "Make", "Put"} <= cats_fixed
    savings = [f.saving_seconds for f in result.fixes]
    assert savings == sorted(savings, reverse=True) and all(s > 0 for s in savings)
    trace = json.loads(paths["trace"].read_text())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    parents = [e for e in slices if e["cat"] != "phase"]
    assert len(parents) == len(result.events)
    for parent in parents:  # phases nest inside their compile's slice
        kids = [e for e in slices if e["cat"] == "phase" and e["args"]["function"] == parent["name"]
                and parent["ts"] <= e["ts"] <= parent["ts"] + parent["dur"]]
        assert {k["name"] for k in kids} >= {"compile"}
        assert all(k["ts"] + k["dur"] <= parent["ts"] + parent["dur"] + 1 for k in kids)
    # the console renderer works on the loaded result (no live objects), as `jitscope report` uses it
    import io

    from jitscope.render import render

    buf = io.StringIO()
    buf.write(render(result, "console", width=200))
    assert "dtype_change x: f32[4] -> i32[4]" in buf.getvalue()
    # the summary went to stderr; the program's stdout is untouched
    assert "Compiles per function" in p.stderr and "shape_change x2" in p.stderr and "x: f32[3] -> f32[4]" in p.stderr
    assert "Fixes, largest saving" in p.stderr and "Persistent compilation cache: off" in p.stderr


@pytest.mark.parametrize("mode,code", [("raise", 1), ("exit2", 2), ("sigint", 130)])
def test_exit_codes_keep_every_compile(cli, tmp_path, mode, code):
    ev, js = tmp_path / "e.jsonl", tmp_path / "r.json"
    p = cli("watch", "--events", str(ev), "--json", str(js), str(EXIT), mode, "--flag", cwd=tmp_path)
    assert p.returncode == code, p.stderr
    assert f"argv: ['{mode}', '--flag'] name: __main__ path0: fixtures" in p.stdout
    assert [e.reason.category for e in read_events(ev)] == ["first_compile", "shape_change"]
    result = load_result(js)
    assert result.exit_code == code and len(result.events) == 2
    assert f"program exited with status {code}" in p.stderr
    if mode == "raise":
        assert "ValueError: boom from the watched program" in p.stderr
        # no frame of runpy or of jitscope's package (its path: a checkout is often a folder named `jitscope`)
        pkg = os.path.dirname(jitscope.__file__) + os.sep
        assert "runpy" not in p.stderr and pkg not in p.stderr.split("ValueError")[0]
    if mode == "sigint":
        assert "KeyboardInterrupt" in p.stderr


def test_module_mode_and_budgets(cli, tmp_path):
    p = cli("watch", "--max-compiles", "1", "--fail-on-recompile", "-q", "-m", "watch_exit", "ok", "--json", "x",
            cwd=tmp_path)
    assert p.returncode == 3, p.stderr
    # everything after -m MODULE belongs to the program, like python -m
    assert "argv: ['ok', '--json', 'x'] name: __main__" in p.stdout
    assert "jitscope: budget exceeded: 2 compiles, budget is 1" in p.stderr
    assert re.search(r"budget exceeded: recompile #1 of double at .*watch_exit.py:20: shape_change: "
                     r"x: f32\[2\] -> f32\[3\]", p.stderr)
    assert "Compiles per function" not in p.stderr  # -q


def test_usage_errors_are_one_line(cli, tmp_path):
    (tmp_path / "afile").write_text("")
    for args, needle in ((["watch"], "give a script"),
                         (["watch", str(tmp_path / "missing.py")], "can't open file"),
                         (["watch", "-m", "no_such_module_xyz"], "no module named 'no_such_module_xyz'"),
                         (["watch", "--max-compiles", "-1", str(EXIT)], "argument --max-compiles: -1 is below the minimum 0"),
                         (["watch", "--events", str(tmp_path / "afile" / "dir.jsonl"), str(EXIT)],
                          "cannot write ")):
        p = cli(*args, cwd=tmp_path)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.strip().splitlines()[-1].startswith("jitscope: ") and needle in p.stderr
        assert "Traceback" not in p.stderr


def test_persistent_cache_hits_on_rerun(cli, tmp_path):
    env = {"JAX_COMPILATION_CACHE_DIR": str(tmp_path / "cache"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    runs = []
    for i in range(2):
        js = tmp_path / f"r{i}.json"
        p = cli("watch", "-q", "--json", str(js), str(EXIT), "ok", cwd=tmp_path, env=env)
        assert p.returncode == 0, p.stderr
        assert "CACHE MISS" not in p.stderr  # explain mode's cache lines are not sprayed on stderr
        runs.append(load_result(js))
    first, second = runs
    assert first.persistent_cache.enabled and first.persistent_cache.min_compile_seconds == 0.0
    assert [e.cache_hit for e in first.events] == [False, False]
    assert first.persistent_cache.rerun_cacheable_compiles == 2 and first.persistent_cache.rerun_saving_seconds > 0
    assert [e.cache_hit for e in second.events] == [True, True] and second.persistent_cache.hits == 2


TRANSFORM = FIXTURES / "watch_transform.py"


def test_first_grad_and_vmap_of_a_jitted_function_are_not_recompiles(cli, tmp_path):
    js = tmp_path / "r.json"
    p = cli("watch", "--fail-on-recompile", "-q", "--json", str(js), str(TRANSFORM), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    validate(load_result(js).to_dict())
    events = load_result(js).events
    # grad compiles two programs: the forward under grad and the backward (transpose) program
    assert [(e.function, e.reason.category, e.transform) for e in events] == [
        ("f", "first_compile", None), ("f", "first_compile", "grad"), ("f", "first_compile", "backward"),
        ("f", "first_compile", "vmap")]
    assert events[1].reason.detail == "first compile of f under a transformation (grad)"
    # a repeat under the same transformation is a recompile, explained against that program's history
    p = cli("watch", "--fail-on-recompile", "--json", str(js), str(TRANSFORM), "again", cwd=tmp_path)
    assert p.returncode == 3, p.stderr
    *_, fwd, bwd = load_result(js).events
    assert (fwd.reason.category, fwd.transform, fwd.reason.detail) == ("shape_change", "grad", "x: f32[3] -> f32[4]")
    assert (bwd.reason.category, bwd.transform) == ("shape_change", "backward")
    # each breach is printed once (in the summary), not twice
    assert p.stderr.count("recompile #4 of f") == 1 and "budget exceeded: recompile #4 of f" in p.stderr
    assert p.stderr.count("recompile #5 of f") == 1


PROG_CHDIR = '''import os
import jax
import jax.numpy as jnp
f = jax.jit(lambda x: x + 1)
f(jnp.ones(2))
os.makedirs("sub", exist_ok=True)
os.chdir("sub")
f(jnp.ones(3))
print("RAN")
'''


def test_outputs_and_call_sites_are_relative_to_the_starting_cwd(cli, tmp_path):
    (tmp_path / "prog.py").write_text(PROG_CHDIR)
    p = cli("watch", "--json", "out.json", "--timeline", "out.trace", "--events", "out.jsonl", "prog.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    for name in ("out.json", "out.trace", "out.jsonl"):
        assert (tmp_path / name).is_file() and not (tmp_path / "sub" / name).exists()
    assert len(load_result(tmp_path / "out.json").events) == 2
    assert " at prog.py:8: shape_change" in p.stderr  # not ../prog.py nor an absolute path


def test_unwritable_outputs_are_refused_before_the_program_runs(cli, tmp_path):
    (tmp_path / "prog.py").write_text(PROG_CHDIR)
    (tmp_path / "afile").write_text("")
    under_a_file = str(tmp_path / "afile" / "x.json")
    for flag, path, cause in (("--json", under_a_file, "is not a directory"),
                              ("--timeline", under_a_file, "is not a directory"),
                              ("--events", under_a_file, "is not a directory"),
                              ("--json", str(tmp_path), "is a directory")):
        p = cli("watch", flag, path, "prog.py", cwd=tmp_path)
        assert p.returncode == 2, (flag, p.stderr)
        (line,) = p.stderr.strip().splitlines()
        assert line.startswith(f"jitscope: {flag} ") and f"cannot write {path}: " in line and cause in line
        assert "RAN" not in p.stdout  # checked before the program ran
    assert not (tmp_path / "sub").exists()


def test_outputs_into_a_new_directory_are_created(cli, tmp_path):
    (tmp_path / "prog.py").write_text(PROG_CHDIR)
    events, trace = tmp_path / "new" / "e.jsonl", tmp_path / "new" / "deeper" / "t.json"
    p = cli("watch", "--events", str(events), "--timeline", str(trace), "prog.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    # PROG_CHDIR compiles its lambda exactly twice (f32[2], then f32[3]): both outputs record both.
    from conftest import compile_lines

    lines = compile_lines(events)
    assert len(lines) == 2 and [json.loads(line)["function"] for line in lines] == ["<lambda>"] * 2
    slices = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    compiles = [e for e in slices if e["cat"] != "phase"]  # phase slices (trace/lower/compile) nest inside
    assert [e["name"] for e in compiles] == ["<lambda>", "<lambda>"]
    assert [e["args"]["index"] for e in compiles] == [0, 1]
    assert {e["name"] for e in slices if e["cat"] == "phase"} >= {"trace", "compile"}


def test_a_failed_write_after_the_run_keeps_summary_exit_code_and_other_outputs(cli, tmp_path):
    # The program makes the --timeline directory impossible (a file where it would go) and exits 5.
    prog = PROG_CHDIR.replace('print("RAN")', 'open("../blocked", "w").close()\nraise SystemExit(5)')
    (tmp_path / "prog.py").write_text(prog)
    trace = tmp_path / "blocked" / "t.json"
    p = cli("watch", "--json", "out.json", "--html", "out.html", "--timeline", str(trace), "prog.py", cwd=tmp_path)
    assert p.returncode == 5, p.stderr  # the program's exit code, not a write error's
    assert f"jitscope: cannot write {trace}: " in p.stderr and "Traceback" not in p.stderr
    assert "Compiles per function" in p.stderr  # the summary still printed
    assert len(load_result(tmp_path / "out.json").events) == 2  # written before the trace failed
    assert (tmp_path / "out.html").read_text().lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize("case,code,line,fix", [
    ("unhashable", "static-unhashable", 24, "pass a tuple instead of a list"),
    ("tracer", "tracer-error", 17, "jnp.where"),
])
def test_a_program_that_dies_of_a_jit_error_is_explained(tmp_path, case, code, line, fix):
    from conftest import FIXTURES, run_cli

    out = tmp_path / "w.json"
    proc = run_cli("watch", "--json", str(out), str(FIXTURES / "watch_crash.py"), case)
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "why it failed" in proc.stderr
    data = json.loads(out.read_text())
    assert data["crash"]["code"] == code
    assert data["crash"]["location"]["line"] == line and data["crash"]["location"]["file"].endswith("watch_crash.py")
    assert fix in data["crash"]["fix"]["title"] + data["crash"]["fix"]["description"]
    assert len(data["events"]) >= 1  # the compile before the crash is kept
