"""`jitscope lint --evidence RUN`: what a run saw JAX trace turns the model's guesses into observations.

A small real collector (tests/evidence_collector.py: sys.setprofile while real JAX traces) records
which user functions ran under a trace and what each parameter was. Code whose jit the source does not
show (a registry filled by a decorator, looked up at run time) is then linted as traced, and the
finding says it was observed; what the run saw static or concrete stays quiet.
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
from jitscope.model import TraceEvidence
from jitscope.schema import validate
from tests.evidence_collector import collect

ROOT = Path(__file__).resolve().parent.parent

OPS = '''\
REGISTRY = {}


def register(fn):
    REGISTRY[fn.__name__] = fn
    return fn


@register
def clip(x):
    if x.max() > 1.0:
        return x / x.max()
    return x


@register
def scale(x, n):
    if n > 2:
        return x * n
    return x


@register
def ramp(x, n):
    if x.sum() > 0:
        return x * n
    return x
'''
TRAIN = '''\
import functools

import jax

from .ops import REGISTRY


def make_step(name, **static):
    fn = functools.partial(REGISTRY[name], **static)
    return jax.jit(lambda x: fn(x))


def grad_of(name):
    return jax.grad(lambda x: REGISTRY[name](x).sum())
'''


@pytest.fixture()
def pkg(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "mlpkg").mkdir(parents=True)
    (root / "mlpkg" / "__init__.py").write_text("")
    (root / "mlpkg" / "ops.py").write_text(OPS)
    (root / "mlpkg" / "train.py").write_text(TRAIN)
    monkeypatch.syspath_prepend(str(root))
    for mod in ("mlpkg", "mlpkg.ops", "mlpkg.train"):
        sys.modules.pop(mod, None)
    yield root
    for mod in ("mlpkg", "mlpkg.ops", "mlpkg.train"):
        sys.modules.pop(mod, None)


def _run(root: Path, calls) -> Path:
    import mlpkg.train as train

    evidence = TraceEvidence(program="tests")
    for name, static, x, transform in calls:
        if transform == "grad":
            fn = train.grad_of(name)
        else:
            fn = train.make_step(name, **static)
        ev, _ = collect(lambda fn=fn, x=x: fn(x), [str(root)], fn, transform="jax.grad" if transform == "grad"
                        else "jax.jit")
        evidence.functions += ev.functions
    out = root / ".jitscope" / "trace-evidence.json"
    evidence.save(out)
    return out


def _validate_file(data):
    """A saved trace-evidence file against records.schema.json's trace_evidence_file (strict TraceEvidence)."""
    import jsonschema
    from referencing import Registry, Resource

    from jitscope.schema import BASE_URI, load_schema

    records = load_schema("records")
    registry = Registry().with_resource(BASE_URI + "records.schema.json", Resource.from_contents(records))
    validator = jsonschema.Draft202012Validator({"$ref": BASE_URI + "records.schema.json#/$defs/trace_evidence_file"},
                                                registry=registry)
    validator.validate(data)
    body = {k: v for k, v in data.items() if k not in ("format_version", "kind")}
    jsonschema.Draft202012Validator({"$ref": BASE_URI + "records.schema.json#/$defs/TraceEvidence"},
                                    registry=registry).validate(body)
    bad = dict(body, surprise=1)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator({"$ref": BASE_URI + "records.schema.json#/$defs/TraceEvidence"},
                                        registry=registry).validate(bad)


def _codes(result):
    return sorted((Path(f.location.file).name, f.location.line, f.code, f.severity) for f in result.findings)


def test_evidence_finds_what_the_source_hides(pkg):
    x = jnp.arange(3.0)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda v: __import__("mlpkg.ops").ops.clip(v))(x)  # the bug is real under jit
    path = _run(pkg, [("clip", {}, x, "jit"), ("scale", {"n": 3}, x, "jit"), ("ramp", {"n": 2}, -x, "jit")])
    data = json.loads(path.read_text())
    _validate_file(data)
    assert {f["qualname"] for f in data["functions"]} >= {"clip", "scale", "ramp"}
    quiet = jitscope.lint([str(pkg / "mlpkg")], config=False, jobs=1, evidence=False)
    assert quiet.findings == []  # the static model cannot see through the registry
    seen = jitscope.lint([str(pkg / "mlpkg")], config=False, jobs=1, evidence=path)
    # clip's and ramp's `if` on an abstract x are found; scale's `n` was static (a partial's Python value)
    assert _codes(seen) == [("ops.py", 11, "JS101", "warning"), ("ops.py", 25, "JS101", "warning")]
    for f in seen.findings:
        assert "observed: traced by `make_step.<locals>.<lambda>` (train.py:10) in trace-evidence.json" in f.message
        assert f.details["observed"] is True and f.confidence == "likely"
    assert seen.evidence == str(path)
    validate(seen.to_dict())


def test_default_location_and_concrete_traces(pkg, monkeypatch):
    x = jnp.arange(3.0)
    _run(pkg, [("clip", {}, x, "grad")])  # eager grad: concrete values, Python control flow works
    jax.grad(lambda v: __import__("mlpkg.ops").ops.clip(v).sum())(x)
    monkeypatch.chdir(pkg)
    result = jitscope.lint(["mlpkg"], config=False, jobs=1)  # reads .jitscope/trace-evidence.json itself
    assert result.evidence == os.path.join(".jitscope", "trace-evidence.json")
    assert result.findings == []
    assert jitscope.lint(["mlpkg"], config=False, jobs=1, evidence=False).evidence is None


def test_cli_evidence_and_bad_input(pkg, tmp_path):
    path = _run(pkg, [("clip", {}, jnp.arange(3.0), "jit")])
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "jitscope", "lint", "--no-config", "--no-snippet"]
    proc = subprocess.run([*cmd, "--evidence", str(path), str(pkg / "mlpkg")], capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and "JS101" in proc.stdout and "observed" in proc.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "lint"}')
    proc = subprocess.run([*cmd, "--evidence", str(bad), str(pkg / "mlpkg")], capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and proc.stderr.startswith("jitscope: ") and "not trace evidence" in proc.stderr
    assert proc.stderr.count("\n") == 1
    proc = subprocess.run([*cmd, "--evidence", str(tmp_path / "nope.json"), str(pkg / "mlpkg")], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 2 and "no such evidence file" in proc.stderr
