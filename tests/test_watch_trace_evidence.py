"""`jitscope watch --trace-evidence`: which of the program's functions ran under a real JAX trace.

A program hands its functions to jit, vmap or nothing through a registry (the source shows no jit at
any def): the evidence file says which ran traced, with which parameters tracers, and `jitscope lint`
then reads it. Recording must not change what JAX does: same compiles, same results.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

import jitscope
from jitscope import _jaxcompat
from jitscope.collect import trace_evidence
from jitscope.schema import validate

ROOT = Path(__file__).resolve().parent.parent

PROG = '''\
import jax
import jax.numpy as jnp

HANDLERS = {}


def register(fn):
    HANDLERS[fn.__name__] = fn
    return fn


@register
def jit_body(x):
    print("tracing jit_body", x)
    return x * 2


@register
def vmap_body(row, scale):
    return row * scale


@register
def eager_body(x):
    print("eager", x)
    return x - 1


def run(name, transform, *args):
    fn = HANDLERS[name]
    return transform(fn)(*args) if transform else fn(*args)


def body(carry, x):
    return carry + x, carry


def main():
    x = jnp.arange(4.0)
    a = run("jit_body", jax.jit, x)
    b = run("vmap_body", lambda f: jax.vmap(f, in_axes=(0, None)), jnp.ones((2, 4)), 3.0)
    c = run("eager_body", None, x)
    d = jax.jit(lambda v: jax.lax.scan(body, 0.0, v)[0])(x)
    e = jax.grad(lambda v: (v * v).sum())(x)
    return a, b, c, d, e


if __name__ == "__main__":
    main()
'''


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def _by_name(data: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in data["functions"]:
        out.setdefault(f["qualname"], []).append(f)
    return out


def test_watch_records_traced_functions_and_lint_reads_them(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "prog.py").write_text(PROG)
    proc = _cli("watch", "-q", "--trace-evidence", "app/prog.py", cwd=tmp_path)  # a .py PATH is the program
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "tracing jit_body" in proc.stdout
    path = tmp_path / ".jitscope" / "trace-evidence.json"  # the default, its directory created
    data = json.loads(path.read_text())
    assert data["kind"] == "trace-evidence" and data["format_version"] == 1
    seen = _by_name(data)
    prog = os.path.realpath(tmp_path / "app" / "prog.py")
    (jit,) = seen["jit_body"]
    assert jit["file"] == prog and jit["line"] == 12  # the decorator's line: the code object's first
    assert [(p["name"], p["kind"]) for p in jit["parameters"]] == [("x", "abstract")]
    assert jit["transform"] == "jax.jit" and jit["entry"] == "jit_body"
    (vm,) = seen["vmap_body"]
    assert [(p["name"], p["kind"]) for p in vm["parameters"]] == [("row", "abstract"), ("scale", "static")]
    assert vm["transform"] == "jax.vmap"
    (scan_body,) = seen["body"]
    assert {p["kind"] for p in scan_body["parameters"]} == {"abstract"}
    assert "eager_body" not in seen and "run" not in seen and "main" not in seen  # ran, but not under a trace
    assert all(f["file"] == prog for f in data["functions"])  # nothing of JAX's, NumPy's or jitscope's

    quiet = jitscope.lint([str(tmp_path / "app")], config=False, jobs=1, evidence=False)
    assert quiet.findings == []  # the registry hides the jit from the static model
    found = jitscope.lint([str(tmp_path / "app")], config=False, jobs=1, evidence=path)
    assert [(f.code, f.location.line, f.severity) for f in found.findings] == [("JS401", 14, "warning")]
    assert "observed: traced by `jit_body`" in found.findings[0].message
    assert found.findings[0].details["observed"] is True
    validate(found.to_dict())

    proc = _cli("watch", "-q", "--trace-evidence", "out/ev.json", "--json", "run.json", "app/prog.py",
                cwd=tmp_path)  # an explicit PATH; the watch result carries the same evidence
    assert proc.returncode == 0, proc.stderr[-3000:]
    again = json.loads((tmp_path / "out" / "ev.json").read_text())
    assert _by_name(again).keys() == seen.keys()
    run = json.loads((tmp_path / "run.json").read_text())
    validate(run)
    assert {f["qualname"] for f in run["trace_evidence"]["functions"]} == set(seen)


def test_off_by_default(tmp_path):
    (tmp_path / "prog.py").write_text(PROG)
    proc = _cli("watch", "-q", "--json", "run.json", "prog.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not (tmp_path / ".jitscope").exists()
    assert json.loads((tmp_path / "run.json").read_text()).get("trace_evidence") is None


@pytest.fixture()
def prog_module(tmp_path, monkeypatch):
    (tmp_path / "evprog.py").write_text(PROG)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("evprog", None)
    yield importlib.import_module("evprog")
    sys.modules.pop("evprog", None)


_COUNTING: list[list[str]] = []


def _count(event: str, _duration: float, **_kw) -> None:
    if _COUNTING and event.startswith("/jax/core/compile/"):
        _COUNTING[-1].append(event)


jax.monitoring.register_event_duration_secs_listener(_count)


def _cold_run(prog, **watch_options):
    """Compile events (JAX's own monitoring) and results of ``prog.main()`` from cold caches."""
    jax.clear_caches()
    _COUNTING.append([])
    try:
        if watch_options:
            with jitscope.watch(**watch_options) as w:
                out = prog.main()
        else:
            w, out = None, prog.main()
    finally:
        events = _COUNTING.pop()
    return sorted(events), [np.asarray(o) for o in out], w


def test_recording_changes_nothing_jax_does(prog_module, tmp_path):
    plain, plain_out, _ = _cold_run(prog_module)
    assert plain.count("/jax/core/compile/backend_compile_duration") >= 2  # the jits compiled, really
    path = tmp_path / "api" / "ev.json"
    with_ev, ev_out, w = _cold_run(prog_module, trace_evidence=path)
    watched, _, _ = _cold_run(prog_module, findings=False)
    assert with_ev == plain == watched  # same traces, lowerings and compiles: no extra, none missing
    for a, b in zip(plain_out, ev_out, strict=True):
        np.testing.assert_array_equal(a, b)
    names = {f.qualname for f in w.result().trace_evidence.functions}
    assert {"jit_body", "vmap_body", "body"} <= names and "eager_body" not in names
    assert json.loads(path.read_text())["kind"] == "trace-evidence"  # a path keyword also writes the file
    assert trace_evidence.failures() == 0
    # steady state: a second run with warm caches traces nothing new, and nothing is recorded twice over
    with jitscope.watch(trace_evidence=True) as w2:
        prog_module.main()
        prog_module.main()
    assert len(w2.result().trace_evidence.functions) <= len(names) + 1


def test_capability_probe_sees_a_moved_hook(monkeypatch):
    assert _jaxcompat.capabilities()["trace_hook"][0]
    assert _jaxcompat.trace_hook_missing() is None
    monkeypatch.setattr(_jaxcompat.tracing, "_CALL_WRAPPED", "call_wrapped_moved")
    ok, why = _jaxcompat.capabilities()["trace_hook"]
    assert not ok and "call_wrapped_moved" in why
    assert all(ok for n, (ok, _) in _jaxcompat.capabilities().items() if n != "trace_hook")


MOVED_RUNNER = """
import sys
from jitscope import _jaxcompat
_jaxcompat.tracing._CALL_WRAPPED = "call_wrapped_moved"  # a JAX that moved the hook
from jitscope.cli import main
sys.exit(main(["watch", "-q", "--trace-evidence", "ev.json", sys.argv[1]]))
"""


def test_without_the_hook_one_note_and_nothing_recorded(tmp_path):
    (tmp_path / "prog.py").write_text(PROG)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", MOVED_RUNNER, "prog.py"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "tracing jit_body" in proc.stdout
    notes = [line for line in proc.stderr.splitlines() if "trace evidence" in line]
    assert len(notes) == 1 and notes[0].startswith("jitscope: note: "), proc.stderr
    assert not (tmp_path / "ev.json").exists()
