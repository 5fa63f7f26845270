"""Trace evidence records the leaves of containers: `self` of a pytree module, a state tuple, a dict.

A jitted step that takes its state as a tuple, or a method of a module registered as a pytree, gets a
Python container whose leaves are tracers: the parameter itself is not one. The run (real
`jitscope watch --trace-evidence` on a real program) records which leaves were abstract
(`TracedParameter.leaves`), and lint then reads `self.w`, `state[0]` and `x, n = state` as traced on
those leaves only: the Python int beside them in the same tuple stays a Python value.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.collect.trace_leaves import abstract_leaves
from jitscope.schema import validate

ROOT = Path(__file__).resolve().parent.parent

PROG = '''\
import jax
import jax.numpy as jnp

STEPS = {}


def register(fn):
    STEPS[fn.__name__] = fn
    return fn


@jax.tree_util.register_pytree_node_class
class Scale:
    def __init__(self, w, name="s"):
        self.w = w
        self.name = name

    def tree_flatten(self):
        return (self.w,), self.name

    @classmethod
    def tree_unflatten(cls, name, children):
        return cls(*children, name=name)

    def apply(self, x):
        if self.name == "s":
            x = x + 0.0
        if self.w.sum() < 0:
            return -x
        return x * self.w


@register
def step(state):
    x, n = state
    if n > 2:
        x = x * 2
    if x.sum() > 0:
        x = x - 1
    return x


@register
def update(params):
    assert params["b"].sum() >= 0
    return params["a"] * params["n"]


def main():
    x = jnp.arange(3.0)
    calls = [lambda: jax.jit(lambda m, v: m.apply(v))(Scale(x), x),
             lambda: jax.jit(lambda v: STEPS["step"]((v, 3)))(x),  # 3 stays a Python int: not a leaf
             lambda: jax.jit(STEPS["update"])({"a": x, "b": x, "n": 2.0})]
    for call in calls:
        try:
            call()
        except jax.errors.TracerBoolConversionError as e:
            print("raised", type(e).__name__)


if __name__ == "__main__":
    main()
'''


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_abstract_leaves_reads_only_what_is_stored():
    seen = []

    @jax.jit
    def f(x):
        class Lazy:
            def __init__(self):
                self.w = x
                self.c = 3

            @property
            def boom(self):  # never evaluated: only the instance dict is read
                raise AssertionError

        state = ((x, 1.0), {"k": x, 2: "a"}, Lazy(), [x] * 100)
        seen.append(abstract_leaves(state, jax.core.Tracer))
        return x

    f(jnp.ones(2))
    # a list of 100 is read to LEAF_WIDTH items; only LEAF_PATHS are kept
    assert seen[0][:4] == ["[0][0]", "[1]['k']", "[2].w", "[3][0]"] and len(seen[0]) == 32
    grads = []
    jax.grad(lambda v: grads.append(abstract_leaves((v,), jax.core.Tracer)) or v.sum())(jnp.ones(2))
    assert grads == [[]]  # concrete tracers (grad outside jit) are not abstract leaves


@pytest.fixture(scope="module")
def evidence(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("leaves")
    (tmp / "app").mkdir()
    (tmp / "app" / "prog.py").write_text(PROG)
    proc = _cli("watch", "-q", "--trace-evidence", "ev.json", "app/prog.py", cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("raised TracerBoolConversionError") == 3  # each bug is real under jit
    return tmp, tmp / "ev.json"


def test_evidence_records_container_leaves(evidence):
    _, path = evidence
    data = json.loads(path.read_text())
    params = {(f["qualname"], p["name"]): p for f in data["functions"] for p in f["parameters"]}
    assert params[("Scale.apply", "self")] == {"name": "self", "kind": "static", "leaves": [".w"]}
    assert params[("Scale.apply", "x")] == {"name": "x", "kind": "abstract"}
    assert params[("step", "state")]["leaves"] == ["[0]"]  # the Python int beside it is not a leaf
    assert params[("update", "params")]["leaves"] == ["['a']", "['b']", "['n']"]


def test_lint_reads_observed_leaves_as_traced(evidence):
    tmp, path = evidence
    quiet = jitscope.lint([str(tmp / "app")], config=False, jobs=1, evidence=False)
    assert quiet.findings == []
    found = jitscope.lint([str(tmp / "app")], config=False, jobs=1, evidence=path)
    validate(found.to_dict())
    got = sorted((f.code, f.location.line, f.severity) for f in found.findings)
    # Each `if`/`assert` on an observed abstract leaf, but not `self.name`, nor `n` (a Python int in the same
    # tuple); each raised TracerBoolConversionError in the run, which the evidence's events carry: an error, certain
    assert got == [("JS101", 28, "error"), ("JS101", 38, "error"), ("JS101", 45, "error")], got
    assert all("observed: traced by" in f.message for f in found.findings)
    assert all(f.details["observed_event"]["error"] == "TracerBoolConversionError" for f in found.findings)


TWICE = '''\
import jax


def check(x):
    if x.sum() > 0:
        return x - 1
    return x


@jax.jit
def step(x):
    return check(x)
'''


def test_a_function_observed_and_reached_by_the_call_graph_reports_once(tmp_path):
    from jitscope.model import TracedFunction, TracedParameter, TraceEvidence

    src = tmp_path / "twice.py"
    src.write_text(TWICE)
    ev = TraceEvidence(functions=[TracedFunction(
        module="twice", qualname="check", file=str(src), line=4, parameters=[TracedParameter("x", "abstract")],
        entry="step", entry_file=str(src), entry_line=10, transform="jax.jit")], program="tests")
    path = tmp_path / "ev.json"
    ev.save(path)
    found = jitscope.lint([str(src)], config=False, jobs=1, evidence=path).findings
    assert [(f.code, f.location.line) for f in found] == [("JS101", 5)]  # once, not once per walk
    assert "traced because `step` (twice.py:12) calls it" in found[0].message and "observed" in found[0].message
