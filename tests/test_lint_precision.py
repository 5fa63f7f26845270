"""False-positive classes found on real libraries (issue 13): each look-alike negative runs fine under
real JAX and draws no finding; each positive next to it really fails. Real JAX on CPU, nothing mocked."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

FIXTURES = Path(__file__).resolve().parent / "lint_fixtures"
_MODULES: dict[str, object] = {}
X = jnp.linspace(-1.0, 2.0, 6)
XS = X.reshape(2, 3)
S = jnp.asarray(1.5)


def fixture(name: str):
    if name not in _MODULES:
        spec = importlib.util.spec_from_file_location(f"lint_precision_{name}", FIXTURES / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _MODULES[name] = mod
    return _MODULES[name]


def findings(name: str, code: str) -> dict[str, list[str]]:
    """Function name -> codes found in it, for fixture ``name`` linted with rule ``code`` only."""
    path = FIXTURES / f"{name}.py"
    out: dict[str, list[str]] = {}
    for f in lint_source(path.read_bytes(), str(path), select=[code]):
        out.setdefault(f.location.function or "<module>", []).append(f.code)
    return out


def test_vmap_unmapped_arguments_are_python_values():
    mod = fixture("JS101_vmap")
    assert mod.scaled_rows(XS, 2).shape == XS.shape
    assert mod.scaled_rows_positional(XS, -1).shape == XS.shape
    assert mod.shifted(XS, True).shape == XS.shape
    with pytest.raises(Exception) as info:  # noqa: B017 - a concretization error
        mod.scaled_both(XS, jnp.array([1, 2]))
    assert "Tracer" in type(info.value).__name__ or "tracer" in str(info.value).lower()
    assert findings("JS101_vmap", "JS101") == {"scale_mapped": ["JS101"]}


def test_filter_jit_non_array_arguments_are_static():
    pytest.importorskip("equinox", reason="equinox not installed (it is in the bench venv)")
    mod = fixture("JS101_filter_jit")
    assert mod.solve(X, 20).shape == X.shape
    assert mod.solve(X, None, False).shape == X.shape
    assert mod.integrate(X, 0.2).shape == X.shape
    assert mod.step(X, True).shape == X.shape
    with pytest.raises(Exception) as info:  # noqa: B017 - a concretization error
        mod.clipped(X, 1.0)
    assert "tracer" in repr(info.value).lower() or "concrete" in repr(info.value).lower()


def test_filter_jit_fixture_findings():
    assert findings("JS101_filter_jit", "JS101") == {"clipped": ["JS101"]}


def test_deliberate_trace_time_effects_run_and_are_not_findings(capsys):
    mod = fixture("JS401_trace_time")
    step = mod.make_step(verbose=True)
    step(X)
    step(X + 1)
    assert capsys.readouterr().out.count("compiling for shape (6,)") == 1  # once per trace, as meant
    assert mod.state_shapes(X)["w"].shape == X.shape and mod.shapes_seen == [(6,)]
    mod.count_traces(X)
    mod.count_traces(X + 1)
    assert mod.n_traces == 1
    got = {}
    for code in ("JS401", "JS402", "JS403"):
        path = FIXTURES / "JS401_trace_time.py"
        for f in lint_source(path.read_bytes(), str(path), select=[code]):
            got.setdefault(f.location.function, []).append((f.code, f.severity))
    # a traced value printed: warning; a static one printed unguarded: info; the deliberate ones: nothing
    assert got == {"step": [("JS401", "warning")], "announced": [("JS401", "info")]}


@pytest.mark.parametrize("path", ["tests/test_step.py", "pkg/step_test.py", "conftest.py", "repo/tests/helpers.py"])
def test_trace_time_effects_in_test_files_are_not_findings(path):
    src = ("import jax\nseen = []\ncount = 0\n\n@jax.jit\ndef f(x):\n    global count\n    count += 1\n"
           "    seen.append(x)\n    print(x)\n    return x\n")
    assert [f.code for f in lint_source(src, path)] == []
    assert sorted(f.code for f in lint_source(src, "pkg/step.py")) == ["JS401", "JS402", "JS403"]
    assert sorted(f.code for f in lint_source(src, "tests/lint_fixtures/step.py")) == ["JS401", "JS402", "JS403"]


def test_module_constants_settled_at_import_and_scalar_arrays():
    js502 = fixture("JS502")
    assert float(js502.first) == float(js502.second) == 1.0  # rebound after a call: really stale
    assert float(js502.settled_ok(1.0)) == 6.0  # rebound before anything ran: the final value is used
    js501 = fixture("JS501")
    assert js501.scalar_arrays_ok(X).shape == X.shape
    assert "settled_ok" not in findings("JS502", "JS502")
    assert "scalar_arrays_ok" not in findings("JS501", "JS501")
    assert findings("JS502", "JS502")["f"] == ["JS502"]


def test_ref_item_assignment_is_an_update_not_a_finding():
    import jax

    if not hasattr(jax, "new_ref"):
        pytest.skip("jax.new_ref needs JAX >= 0.7")
    first, total = fixture("JS601_refs").run(X)
    assert first.tolist() == [2.0, 0.0, 0.0] and float(total) == pytest.approx(float(X.sum()))
    with pytest.raises(TypeError, match="immutable"):
        fixture("JS601_refs").fill(1.0)
    got = findings("JS601_refs", "JS601")
    assert got == {"fill": ["JS601"]}


def test_nnx_variable_item_assignment_is_an_update():
    pytest.importorskip("flax.nnx", reason="flax not installed (it is in the bench venv)")
    mod = fixture("JS601_nnx")
    c = mod.Counter()
    mod.set_first(c.count, 2.0)
    assert c.count[...].tolist() == [2.0, 0.0, 0.0]


def test_js601_on_an_argument_without_array_use_is_a_warning_without_fix():
    src = "import jax\n\n@jax.jit\ndef f(xs, v):\n    xs[0] = v\n    return xs\n"
    (f,) = lint_source(src, "m.py")
    assert (f.code, f.severity, f.confidence, f.fix) == ("JS601", "warning", "likely", None)
    assert jax_list_update_works()


def jax_list_update_works() -> bool:
    """The look-alike the warning allows for: a list argument takes `xs[0] = v` under real jit."""
    import jax

    out = jax.jit(lambda xs, v: (xs.__setitem__(0, v), xs)[1])([X, X], S)
    return float(out[0]) == 1.5


def test_js601_argument_with_array_use_is_certain_and_fails():
    with pytest.raises(TypeError, match="immutable"):
        fixture("JS601").scale_first(X)
    path = FIXTURES / "JS601.py"
    got = [(f.location.function, f.severity, f.confidence, f.fix is not None)
           for f in lint_source(path.read_bytes(), str(path), select=["JS601"])]
    assert ("scale_first", "error", "certain", True) in got
    assert ("reset_first", "warning", "likely", False) in got  # no array use: could be a list


def test_jit_of_a_closure_in_a_one_shot_driver_compiles_once_either_way():
    import jax

    mod = fixture("JS204_driver")
    xs = jnp.arange(4.0)
    assert float(mod.train(xs, 2.0)) == 12.0 and len(mod.COMPILES) == 1  # one call: one trace, as without jit
    assert findings("JS204_driver", "JS204") == {"evaluate": ["JS204"]}
    # the positive next to it: every call of `evaluate` traces anew (a fresh lambda each time)
    traces = []
    fresh = lambda v: (traces.append(1), v.mean())[1]  # noqa: E731
    for _ in range(3):
        jax.jit(lambda v: fresh(v))(xs)
    assert len(traces) == 3


@pytest.mark.filterwarnings("ignore:Python iterable type:DeprecationWarning")
def test_sum_over_a_generator_does_not_suggest_jnp_sum_of_the_generator():
    import jax

    src = "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef squares(x: jax.Array):\n    return sum(v * v for v in x)\n"
    (f,) = lint_source(src, "m.py", select=["JS201"])
    assert f.fix is None and "use jnp.sum" not in f.message and "do not take generators" in f.message
    with pytest.raises(TypeError):  # what the old advice led to, under real JAX
        jax.jit(lambda x: jnp.sum(v * v for v in x))(X)
    assert float(jax.jit(lambda x: jnp.sum(x * x))(X)) == pytest.approx(float(sum(v * v for v in X)))


SEVERITIES = ("import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x):\n    print('shape', x.shape)\n"
              "    return sum(x)\n\n\n@jax.jit\ndef g(x):\n    if x > 0:\n        return x\n    return -x\n")


@pytest.mark.parametrize("exit_on, selected, rc", [
    ("info", "JS401", 1), ("warning", "JS401", 0), ("warning", "JS201", 1), ("error", "JS201", 0),
    ("error", "JS101", 1), (None, "JS401", 0), (None, "JS201", 1),
])
def test_exit_on_sets_which_severities_fail_the_run(tmp_path, exit_on, selected, rc):
    """JS401 here is info (a static shape printed), JS201 a warning, JS101 an error."""
    import subprocess
    import sys

    src = tmp_path / "m.py"
    src.write_text(SEVERITIES)
    argv = [sys.executable, "-m", "jitscope", "lint", "--no-config", "--select", selected, str(src)]
    if exit_on:
        argv += ["--exit-on", exit_on]
    r = subprocess.run(argv, capture_output=True, text=True)
    assert r.returncode == rc, r.stdout + r.stderr
    assert f": {selected} [" in r.stdout  # reported either way, with its severity and confidence
    bad = subprocess.run(argv[:-1] + [str(src), "--exit-on", "fatal"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_confidence_in_json_sarif_and_text(tmp_path):
    import json

    from jitscope import lint
    from jitscope.render import render

    src = tmp_path / "m.py"
    src.write_text(SEVERITIES)
    result = lint([str(src)], config=False)
    by_code = {f.code: (f.severity, f.confidence) for f in result.findings}
    assert by_code == {"JS401": ("info", "likely"), "JS201": ("warning", "likely"), "JS101": ("error", "certain")}
    doc = json.loads(render(result, "json"))
    assert {f["code"]: f["confidence"] for f in doc["findings"]} == {"JS401": "likely", "JS201": "likely",
                                                                     "JS101": "certain"}
    sarif = json.loads(render(result, "sarif"))
    props = {r["ruleId"]: r["properties"]["confidence"] for r in sarif["runs"][0]["results"]}
    assert props == {"JS401": "likely", "JS201": "likely", "JS101": "certain"}
    text = render(result, "console")
    assert "JS101 [error, certain] Python `if`" in text and "JS401 [info, likely]" in text
    assert result.exit_status("error") == 1 and result.exit_status("warning") == 1


def test_call_graph_same_module_helper_found_and_python_arguments_not():
    mod = fixture("JS101_callgraph")
    assert mod.step_partial_ok(X).shape == X.shape
    for fails in (lambda: mod.step(X), lambda: mod.Model()(X), lambda: mod.step_partial(X), lambda: mod.slope(S),
                  lambda: mod.rollout(X)):
        with pytest.raises(Exception) as info:  # noqa: B017 - a concretization error
            fails()
        assert "tracer" in repr(info.value).lower() or "concrete" in repr(info.value).lower()
    assert mod.step_ok(X).shape == X.shape  # `repeat(..., 2, False)`: Python values, fine under jit
    path = FIXTURES / "JS101_callgraph.py"
    got = {(f.location.function, f.details.get("traced_via")) for f in lint_source(path.read_bytes(), str(path))}
    assert got == {("normalize", "`step` (JS101_callgraph.py:24) calls it"),
                   ("gate", "`forward` (JS101_callgraph.py:37) calls it"),
                   ("shift_checked", "`step_partial` (JS101_callgraph.py:65) calls it"),
                   ("soft_abs_jvp", "it is a derivative rule of `soft_abs`, which is traced"),
                   ("act", "`run_policy` (JS101_callgraph.py:111) calls it")}


def test_call_graph_across_modules_names_the_path(monkeypatch):
    import importlib
    import sys

    from jitscope import lint

    monkeypatch.syspath_prepend(str(FIXTURES))
    train = importlib.import_module("callgraph_pkg.train")
    with pytest.raises(Exception) as info:  # noqa: B017 - a concretization error
        train.step(X)
    assert "tracer" in repr(info.value).lower() or "concrete" in repr(info.value).lower()
    assert train.step_ok(X).shape == X.shape
    with pytest.raises(Exception):  # noqa: B017 - `damp` branches on a tracer under fori_loop
        train.solve(X)
    euler = importlib.import_module("callgraph_pkg.euler")
    with pytest.raises(Exception):  # noqa: B017 - the override runs inside the base class's while_loop
        euler.Euler().solve(X)
    assert float(euler.Heun().solve(X).sum()) >= 10.0
    for name in ("callgraph_pkg.train", "callgraph_pkg.euler", "callgraph_pkg.ops", "callgraph_pkg.base",
                 "callgraph_pkg"):
        sys.modules.pop(name, None)
    pkg = FIXTURES / "callgraph_pkg"
    result = lint([str(pkg)], config=False, jobs=1)
    got = sorted((Path(f.location.file).name, f.location.line, f.code, f.details["traced_via"], f.severity)
                 for f in result.findings)
    # Public functions of a package: callers outside the linted files are unknown, so a warning.
    assert got == [("euler.py", 8, "JS101", "base.py:6 hands it to `jax.lax.while_loop`", "warning"),
                   ("ops.py", 6, "JS101", "`step` (train.py:10) calls it", "warning"),
                   ("ops.py", 31, "JS101", "`update` (ops.py:28) calls it", "warning")]
    assert all("(traced because " + f.details["traced_via"] in f.message for f in result.findings)
    assert result.files_checked == 5
    # the same files in the other order, and one file alone (its helpers' module is not linted: no finding)
    again = lint([str(pkg / "train.py"), str(pkg / "ops.py")], config=False, jobs=1)
    assert [(f.location.line, f.code) for f in again.findings] == [(6, "JS101"), (31, "JS101")]
    assert lint([str(pkg / "train.py")], config=False, jobs=1).findings == []
