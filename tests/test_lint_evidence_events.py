"""`lint --evidence` with what a run OBSERVED at the user's lines (the trace evidence's ``events``).

Real programs run under `jitscope watch --trace-evidence` (a subprocess, real jax.jit on CPU): errors JAX
raised while tracing (caught by the program, or the one it died of), a tracer leaked through a dict and used
later, a recompile by weak type. Lint with that file reports each at the user's line under the static rule of
its class, marked observed; a clean twin's run gives none; a static finding at the same line is marked, not
duplicated; a file written before events (none) still reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jitscope.lint import evidence as lint_evidence

ROOT = Path(__file__).resolve().parent.parent

# Functions reach jit through a registry: the source shows no jit at any def.
BUGGY = '''\
import jax
import jax.numpy as jnp

STEPS = {}
CACHE = {}


def register(fn):
    STEPS[fn.__name__] = fn
    return fn


@register
def positives(x):
    return x[x > 0].sum()


@register
def padded(x):
    n = int(jnp.sum(x))
    return jnp.zeros(n)


@register
def remember(x):
    y = x * 2
    CACHE["y"] = y
    return y


def factors():
    return [1, 2]


def main():
    x = jnp.arange(4.0)
    for name in ("positives", "padded"):
        try:
            jax.jit(STEPS[name])(x)
        except Exception as e:
            print("caught", type(e).__name__)
    jax.jit(STEPS["remember"])(x)
    try:
        CACHE["y"] + 1
    except Exception as e:
        print("caught", type(e).__name__)
    scale = jax.jit(lambda v, s: v * s)
    scale(x, 2.0)
    scale(x, jnp.float32(3.0))
    twice = jax.jit(lambda v, fs: v * len(fs), static_argnums=1)
    twice(x, factors())


main()
'''

LINES = {"mask": 15, "int": 20, "store": 27, "weak": 49, "unhashable": 51}

# The twin: each bug fixed the way its finding says (the same lines, so the twin runs the same paths).
CLEAN = BUGGY
for bug, fix in (("return x[x > 0].sum()", "return jnp.where(x > 0, x, 0).sum()"),
                 ("n = int(jnp.sum(x))", "n = x.shape[0]"),
                 ('    CACHE["y"] = y\n', ""),
                 ('    jax.jit(STEPS["remember"])(x)', '    CACHE["y"] = jax.jit(STEPS["remember"])(x)'),
                 ("scale(x, 2.0)", "scale(x, jnp.float32(2.0))"),
                 ("return [1, 2]", "return (1, 2)")):
    assert bug in CLEAN, bug
    CLEAN = CLEAN.replace(bug, fix)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def _run(tmp: Path, name: str, source: str) -> tuple[Path, Path]:
    prog = tmp / f"{name}.py"
    prog.write_text(source)
    ev = tmp / f"{name}-ev.json"
    proc = _cli("watch", "-q", "--trace-evidence", str(ev), str(prog), cwd=tmp)
    assert ev.is_file(), proc.stderr[-3000:]
    return prog, ev


def _lint(prog: Path, *evidence: str) -> list[dict]:
    proc = _cli("lint", "--no-config", "--exit-zero", "--format", "json", *evidence, str(prog), cwd=prog.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)["findings"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("events")
    return _run(tmp, "buggy", BUGGY), _run(tmp, "clean", CLEAN)


def test_the_run_records_what_it_observed_at_the_users_lines(runs):
    (prog, ev), _ = runs
    data = json.loads(ev.read_text())
    assert data["format_version"] == 1  # an optional field: no bump (schema/CHANGELOG.md)
    got = {(e["code"], e["line"], e["error"]) for e in data["events"]}
    assert ("JS301", LINES["mask"], "NonConcreteBooleanIndexError") in got  # caught by the program
    assert ("JS103", LINES["int"], "ConcretizationTypeError") in got
    assert ("JS602", LINES["unhashable"], "ValueError") in got  # the error the program died of
    assert any(e["code"] == "JS210" and e["line"] == LINES["weak"] and e["severity"] == "warning"
               for e in data["events"])
    leak = [e for e in data["events"] if e["runtime_code"] == "JW102"]
    assert leak and leak[0]["error"] == "UnexpectedTracerError"
    assert all(os.path.realpath(e["file"]) == os.path.realpath(prog) for e in data["events"])
    from test_lint_evidence import _validate_file

    _validate_file(data)  # strict: the events are in the schema


def test_lint_reports_each_observation_at_its_line_under_its_rule(runs):
    (prog, ev), _ = runs
    found = {(f["code"], f["location"]["line"]): f for f in _lint(prog, "--evidence", str(ev))}
    for code, line in (("JS301", LINES["mask"]), ("JS103", LINES["int"]), ("JS403", LINES["store"]),
                       ("JS602", LINES["unhashable"])):
        f = found[(code, line)]
        assert f["severity"] == "error" and f["confidence"] == "certain", f
        assert "observed in the run recorded in buggy-ev.json" in f["message"]
        assert f["details"]["observed_event"]["proved"] == "raised"
    weak = found[("JS210", LINES["weak"])]
    assert weak["severity"] == "warning" and "weak type" in weak["message"]
    assert weak["fix"]["title"]  # the catalogue's fix, as watch gives it
    # one voice: an observation never duplicates a static finding of its class at its line
    lines = [(f["code"], f["location"]["line"]) for f in _lint(prog, "--evidence", str(ev))]
    assert len(lines) == len(set(lines))


def test_without_evidence_the_registry_hides_them(runs):
    (prog, _), _ = runs
    found = {(f["code"], f["location"]["line"]) for f in _lint(prog, "--no-evidence")}
    assert ("JS301", LINES["mask"]) not in found and ("JS103", LINES["int"]) not in found
    assert ("JS210", LINES["weak"]) not in found


def test_a_clean_twins_run_observes_nothing(runs):
    _, (prog, ev) = runs
    data = json.loads(ev.read_text())
    assert not data.get("events"), data.get("events")
    found = _lint(prog, "--evidence", str(ev))
    assert not [f for f in found if f["severity"] in ("error", "warning")], found


def test_an_old_evidence_file_still_reads(runs, tmp_path):
    (prog, ev), _ = runs
    data = json.loads(ev.read_text())
    data.pop("events")
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    found = _lint(prog, "--evidence", str(old))
    assert not any("observed_event" in f["details"] for f in found)
    mask = [f for f in found if (f["code"], f["location"]["line"]) == ("JS301", LINES["mask"])]
    assert mask and "observed: traced by" in mask[0]["message"]  # the functions still read


def test_merge_marks_a_static_finding_and_upgrades_by_proof():
    from jitscope.lint.engine import lint_text
    from jitscope.lint.registry import selected_codes

    src = "import jax\n\n\ndef f(x, flag):\n    if flag:\n        return x\n    return -x\n"
    table = lint_evidence.FileObservations()
    table.events.append(("JS101", 5, "error", "TracerBoolConversionError", "bool of a tracer", 2, "f", "t", "w",
                         "run.json", "JW101"))
    findings, _ = lint_text(src, "m.py", selected_codes(None, None), observed=table)
    (f,) = [f for f in findings if f.code == "JS101"]
    assert f.severity == "error" and f.location.line == 5 and "(2 times)" in f.message
    table.events[0] = ("JS101", 99, *table.events[0][2:])  # past the file's end: the file changed since the run
    findings, _ = lint_text(src, "m.py", selected_codes(None, None), observed=table)
    assert not findings


EXITS = '''\
import sys

import jax
import jax.numpy as jnp


def positives(row):
    return row[row > 0].sum()


try:
    jax.vmap(positives)(jnp.ones((3, 4)))
except Exception as e:
    print("RESULT:", type(e).__name__)
    sys.exit(1)
'''


def test_the_error_a_program_exits_on_is_observed(tmp_path):
    """`except Exception: sys.exit(1)`: the program died of the error it was handling (the exit's __context__);
    an eager vmap's trace (no jit: no failed-trace finding) raised it at the innermost user frame. JAX's
    boundary probe saw it first (``raised``), and the exit's copy of it is not a second event."""
    prog, ev = _run(tmp_path, "exits", EXITS)
    (event,) = json.loads(ev.read_text())["events"]
    assert (event["code"], event["line"], event["error"], event["runtime_code"]) == (
        "JS301", 8, "NonConcreteBooleanIndexError", "raised")
    (f,) = [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS301"]
    assert f["location"]["line"] == 8 and f["severity"] == "error" and "observed in the run" in f["message"]


LEAKS = '''\
import jax
import jax.numpy as jnp

CACHE = {}


def features(x):
    if "f" not in CACHE:
        CACHE["f"] = jnp.sin(x)
    return CACHE["f"]


@jax.jit
def first(x):
    return features(x) * 2


@jax.jit
def second(x):
    return features(x) + x


try:
    first(jnp.ones(3))
    second(jnp.ones(3))
except Exception as e:
    print("caught", type(e).__name__)
'''


def test_a_tracer_cached_by_one_trace_and_read_by_another_is_observed_where_it_was_made(tmp_path):
    """JAX names the line that made the leaked tracer ("created on line prog.py:9"): the event is there, and the
    static store finding of that function is marked, not repeated."""
    prog, ev = _run(tmp_path, "leaks", LEAKS)
    (event,) = json.loads(ev.read_text())["events"]
    assert (event["code"], event["line"], event["error"]) == ("JS403", 9, "UnexpectedTracerError")
    leaks = [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] in ("JS402", "JS403")]
    assert [(f["location"]["line"], f["severity"]) for f in leaks] == [(9, "error")]
    assert leaks[0]["details"]["observed_event"]["error"] == "UnexpectedTracerError"
