"""`jitscope warmup` and `jitscope watch --warmup`: a warm-up script written from a real watch run, run
before the real program, leaves no compile of what it covers; what it cannot cover is listed, not guessed.

Compiles are counted by the program itself with its own ``jax.monitoring`` listener (per ``fun_name``),
not by jitscope, and the same program run without the warm-up is the control that makes them non-zero.
"""

from __future__ import annotations

import json
import subprocess
import sys

import jax
import pytest
from conftest import run_cli

MODEL = '''
"""The served functions, in a module the program imports."""
import collections
import functools

import jax
import jax.numpy as jnp

Pair = collections.namedtuple("Pair", "a b")


@jax.jit
def predict(params, x):                     # a pytree argument (a dict of arrays)
    return jnp.tanh(params["w"] @ x + params["b"])


@functools.partial(jax.jit, static_argnames=("n",))
def smooth(x, n):                           # a static argument, passed by keyword
    for _ in range(n):
        x = (x + jnp.roll(x, 1)) / 2
    return x


def _scale(x, factor):                      # a weak-typed Python scalar; jitted under another name
    return x * factor


scale = jax.jit(_scale)
double = jax.jit(lambda x: x * 2)           # a lambda: no name to import


@jax.jit
def pair_sum(p):                            # a namedtuple: a custom pytree node
    return p.a + p.b
'''

SERVE = '''
"""A small server: requests of two sizes, each through every function; prints its own compile counts."""
import collections
import json
import sys

import jax
import jax.numpy as jnp

import model

counts = collections.Counter()


def listener(event, duration, **kw):
    if event == "/jax/core/compile/backend_compile_duration":
        counts[kw.get("fun_name", "?")] += 1


jax.monitoring.register_event_duration_secs_listener(listener)
covered_only = "--covered-only" in sys.argv


@jax.jit
def local_norm(x):                          # defined in the script run as __main__
    return jnp.sqrt(jnp.sum(x * x))


def serve(size):
    params = {"w": jnp.ones((size, size)), "b": jnp.zeros(size)}
    x = jnp.ones(size)
    out = [model.predict(params, x), model.smooth(x, n=3), model.scale(x, 0.5),
           model.scale(jax.device_put(x, jax.devices()[0]), 0.5)]  # a committed array
    if not covered_only:
        out += [model.double(x), model.pair_sum(model.Pair(x, x)), local_norm(x)]
    return out


for _ in range(3):
    for size in (4, 8):
        jax.block_until_ready(serve(size))
if "--extra" in sys.argv:
    jax.block_until_ready(model.smooth(jnp.ones(16), n=3))   # a shape the recorded run never had
print(json.dumps(dict(counts)))
'''

COVERED = ("jit(predict)", "jit(smooth)", "jit(_scale)")
UNCOVERED = ("jit(<lambda>)", "jit(pair_sum)", "jit(local_norm)")


def _counts(stdout: str) -> dict[str, int]:
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    d = tmp_path_factory.mktemp("warmup")
    (d / "model.py").write_text(MODEL)
    (d / "serve.py").write_text(SERVE)
    r = run_cli("watch", "-q", "--json", "run.json", "--events", "run.jsonl", "serve.py", cwd=d)
    assert r.returncode == 0, r.stderr
    r = run_cli("warmup", "run.json", "-o", "warmup.py", "--threads", "2", cwd=d)
    assert r.returncode == 0, r.stderr
    return d, r


def _python(d, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=d, capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})


def test_without_the_warmup_the_program_compiles_every_function(project):
    d, _ = project
    r = _python(d, "serve.py")
    assert r.returncode == 0, r.stderr
    counts = _counts(r.stdout)
    # the control: predict and smooth once per size, scale once per size for each commitment
    assert [counts.get(f, 0) for f in COVERED] == [2, 2, 4], counts


def _xfail_if_jax06_recompiled(counts: list[int]) -> None:
    """Seen about 1 run in 8 on JAX 0.6.2, never on 0.8.3 or 0.10.2 (16 runs each): the call with the
    committed array (``_scale``) compiles again after its ahead-of-time compile; the cause is not known.
    Any other count still fails the test."""
    if jax.__version_info__ < (0, 8) and counts == [0, 0, 1]:
        pytest.xfail("JAX 0.6.2 now and then compiles the committed-array call again after its AOT compile")


def test_check_mode_covered_functions_compile_nothing_and_the_rest_is_listed(project):
    d, _ = project
    r = run_cli("watch", "--warmup", "warmup.py", "--json", "check.json", "serve.py", cwd=d)
    assert r.returncode == 3, r.stderr  # the lambda, the namedtuple and the __main__ function were missed
    counts = _counts(r.stdout)  # the program's own count, not jitscope's
    _xfail_if_jax06_recompiled([counts.get(f, 0) for f in COVERED])
    assert [counts.get(f, 0) for f in COVERED] == [0, 0, 0], counts
    assert all(counts.get(f, 0) == 2 for f in UNCOVERED), counts
    result = json.loads((d / "check.json").read_text())
    warm = result["warmup"]
    assert warm["script"] == "warmup.py" and warm["exit_code"] == 0
    assert warm["compiles"] == 8 and warm["missed"] == 6  # 8 (function, signature) pairs ahead of time
    assert sorted(e["function"] for e in result["events"]) == sorted(["<lambda>", "pair_sum", "local_norm"] * 2)
    missed = [line for line in r.stderr.splitlines() if "missed 6 compiles" in line]
    assert len(missed) == 1 and "<lambda> (model.py:" in missed[0] and "local_norm (serve.py:" in missed[0]


def test_check_mode_exits_0_when_the_warmup_covers_every_compile(project):
    d, _ = project
    r = run_cli("watch", "--warmup", "warmup.py", "serve.py", "--covered-only", cwd=d)
    counts = [_counts(r.stdout).get(f, 0) for f in COVERED]
    _xfail_if_jax06_recompiled(counts)
    assert r.returncode == 0, r.stderr
    assert counts == [0, 0, 0]
    assert "the program then compiled nothing: the warm-up covered every compile" in r.stderr


def test_check_mode_names_a_compile_the_script_missed(project):
    d, _ = project
    r = run_cli("watch", "--warmup", "warmup.py", "--json", "extra.json", "serve.py", "--covered-only", "--extra",
                cwd=d)
    assert r.returncode == 3, r.stderr
    assert _counts(r.stdout)["jit(smooth)"] == 1
    result = json.loads((d / "extra.json").read_text())
    events = result["events"]
    # JAX 0.6.2 now and then compiles the committed-array call again (test_check_mode_exits_0_...)
    flaked = jax.__version_info__ < (0, 8) and [e["function"] for e in events] == ["_scale", "smooth"]
    (event,) = events[1:] if flaked else events
    assert event["function"] == "smooth" and event["reason"]["category"] == "shape_change"
    assert "f32[16]" in event["reason"]["detail"]  # explained against the warm-up's own compiles
    line = [x for x in r.stderr.splitlines() if f"missed {2 if flaked else 1} compile" in x]
    assert len(line) == 1 and "smooth (model.py:" in line[0]
    from jitscope.render import render
    from jitscope.results import load_result

    page = render(load_result(d / "extra.json"), "html")  # the check's own lines in the report
    assert f"the program then compiled {2 if flaked else 1} more: missed by the warm-up." in page
    assert "missed by the warm-up (function, definition, compiles)" in page and "smooth (model.py:" in page


def test_imported_warmup_fills_the_process_caches_without_jitscope(project):
    d, _ = project
    code = "import runpy, warmup; warmup.warmup(); runpy.run_path('serve.py', run_name='__main__')"
    r = _python(d, "-c", code, "--covered-only")
    assert r.returncode == 0, r.stderr
    _xfail_if_jax06_recompiled([_counts(r.stdout).get(f, 0) for f in COVERED])
    assert [_counts(r.stdout).get(f, 0) for f in COVERED] == [0, 0, 0]
    assert "warmup: compiled 8 of 8" in r.stderr


def test_the_script_runs_alone_and_lists_what_it_cannot_import(project):
    d, gen = project
    for name, why in (("<lambda>", "a lambda"), ("local_norm", "__main__"), ("pair_sum", "custom node")):
        assert any(name in line and why in line for line in gen.stdout.splitlines()), gen.stdout
    assert "8 ahead-of-time compiles covering 8 of 14 recorded compiles" in gen.stdout
    text = (d / "warmup.py").read_text()
    calls = text[text.index("CALLS = ["):text.index("NOT_COVERED")]
    assert "THREADS = 2" in text and "weak_type=True" in calls and "device=0" in calls
    assert "{'n': 3}" in calls and "{'b': S((8,), 'float32'), 'w': S((8, 8), 'float32')}" in calls
    listed = text[text.index("NOT_COVERED = ["):text.index("HERE =")]
    for name in ("<lambda>", "local_norm", "pair_sum"):
        assert f"'{name}'" not in calls and f"('{name}', " in listed  # listed as data, never compiled
    r = _python(d, "warmup.py", "--threads", "1")
    assert r.returncode == 0, r.stderr
    assert "warmup: compiled 8 of 8" in r.stderr


def test_events_file_gives_the_same_script(project):
    d, _ = project
    r = run_cli("warmup", "run.jsonl", "-o", "from_events.py", cwd=d)
    assert r.returncode == 0, r.stderr
    a = (d / "warmup.py").read_text()
    b = (d / "from_events.py").read_text()
    strip = [a[a.index("CALLS = ["):a.index("HERE =")], b[b.index("CALLS = ["):b.index("HERE =")]]
    assert strip[0] == strip[1]


@pytest.mark.parametrize("case", ["missing", "not_a_run", "lint_result", "unwritable", "directory"])
def test_bad_input_is_one_line_and_exit_2(project, tmp_path, case):
    d, _ = project
    run, out = str(d / "run.json"), str(tmp_path / "w.py")
    if case == "missing":
        run = str(tmp_path / "nope.json")
    elif case == "not_a_run":
        (tmp_path / "x.txt").write_text("hello\n")
        run = str(tmp_path / "x.txt")
    elif case == "lint_result":
        lint = tmp_path / "lint.json"
        assert run_cli("lint", "--json", str(lint), str(d / "model.py")).returncode in (0, 1)
        run = str(lint)
    elif case == "unwritable":
        (tmp_path / "file").write_text("")
        out = str(tmp_path / "file" / "w.py")  # under a regular file: no directory can be made there
    else:
        out = str(tmp_path)
    r = run_cli("warmup", run, "-o", out)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: ") and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "w.py").exists()


def test_watch_refuses_a_missing_warmup_script(project):
    d, _ = project
    r = run_cli("watch", "--warmup", "nope.py", "serve.py", cwd=d)
    assert r.returncode == 2
    assert r.stderr.strip().startswith("jitscope: ") and len(r.stderr.strip().splitlines()) == 1


EDGE = '''
import functools

import jax
import jax.numpy as jnp


class Config:                               # no __eq__/__hash__: a static argument hashed by identity
    pass


@jax.jit
def tree(t, d):                             # a tuple holding None, a dict with int keys
    return t[0] + d[1] + d[2]


@functools.partial(jax.jit, static_argnames=("cfg",))
def configured(x, cfg):
    return x + 1


def _base(x, k):
    return x * k


bound = jax.jit(functools.partial(_base, k=2))


@jax.jit
def loss(x):
    return jnp.sum(x ** 2)


@jax.jit
def keyed(key):
    return jax.random.normal(key, (2,))


def make():
    @jax.jit
    def inner(x):
        return x - 1
    return inner


class Model:
    @functools.partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x / 2
'''


def test_plan_writes_exact_calls_and_names_each_reason_to_leave_one_out(tmp_path, monkeypatch):
    import dataclasses

    import jax
    import jax.numpy as jnp

    import jitscope
    from jitscope.analyze.warmup_plan import plan

    (tmp_path / "edge_mod.py").write_text(EDGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import edge_mod as m

    x = jnp.ones(3)
    with jitscope.watch() as w:
        m.tree((x, None), {1: x, 2: x})
        m.configured(x, cfg=m.Config())
        m.bound(x)
        jax.grad(m.loss)(x)
        m.keyed(jax.random.key(0))
        m.make()(x)
        m.Model().apply(x)
    p = plan(w.events)
    (call,) = p.calls
    assert (call.module, call.function) == ("edge_mod", "tree")
    from jitscope.render.warmup_script import expression_text

    assert [expression_text(a) for a in call.args] == ["(S((3,), 'float32'), None)",
                                                       "{1: S((3,), 'float32'), 2: S((3,), 'float32')}"]
    assert call.root == str(tmp_path) and call.kwargs == {}
    reasons: dict[str, str] = {}
    for s in p.skipped:  # one function may have several (JAX 0.6/0.8 also attribute a derived program to keyed)
        reasons[s.function] = reasons.get(s.function, "") + s.reason + "; "
    assert "hashed by identity" in reasons["configured"]
    assert "functools.partial" in reasons["_base"]
    assert "compiled under" in reasons["loss"]
    assert "standard dtype" in reasons["keyed"] or "compiled under derived" in reasons["keyed"]  # the latter: 0.6/0.8
    assert "closure" in reasons["make.<locals>.inner"]
    assert "method" in reasons["Model.apply"]
    assert p.covered == 1 and p.compiles == len(w.events)
    # A run recorded before the module and the keyword passing were: left out, never guessed.
    old = [dataclasses.replace(e, module=None) for e in w.events if e.function == "tree"]
    assert "older jitscope" in plan(old).skipped[0].reason
    old = [dataclasses.replace(e, signature=dataclasses.replace(e.signature, keywords=None))
           for e in w.events if e.function == "tree"]
    assert "older jitscope" in plan(old).skipped[0].reason


def _aot_then_call(warm, call) -> int:
    """Backend compiles of ``call()`` after ``warm()``, counted with jax.monitoring for the jitted ``f`` only."""
    import jax

    seen: list[str] = []

    def listener(event, duration, **kw):
        if event == "/jax/core/compile/backend_compile_duration" and kw.get("fun_name") == "jit(f)":
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        warm()
        before = len(seen)
        call()
        return len(seen) - before
    finally:
        from jitscope._jaxcompat import unregister_listener

        unregister_listener("duration", listener)


@pytest.mark.parametrize("case, expected", [
    ("same", 0), ("weak", 0), ("weak_missing", 1), ("static_kw", 0), ("static_kw_called_pos", 1),
    ("committed_with_device", 0), ("committed_without_device", 1)])
def test_an_aot_compile_fills_the_cache_of_later_calls_only_when_everything_matches(case, expected):
    """The truth the script is built on (docs/warmup.md's table): on this JAX, a ``.lower(specs).compile()``
    leaves a later ordinary call nothing to compile exactly when weak type, keyword-or-position and a
    committed array's device match."""
    import functools

    import jax
    import jax.numpy as jnp

    @functools.partial(jax.jit, static_argnames=("n",))
    def f(x, y, n=1):
        return x * y + n

    S = jax.ShapeDtypeStruct  # noqa: N806
    dev = jax.devices()[0]
    one = jax.sharding.SingleDeviceSharding(dev)
    x, y, half = jnp.ones(3), jnp.ones(3), 0.5
    committed = jax.device_put(jnp.ones(3), dev)
    jax.block_until_ready((x, y, committed))
    f32 = jnp.float32
    warm, call = {
        "same": (lambda: f.lower(S((3,), f32), S((3,), f32)), lambda: f(x, y)),
        "weak": (lambda: f.lower(S((3,), f32), S((), f32, weak_type=True)), lambda: f(x, half)),
        "weak_missing": (lambda: f.lower(S((3,), f32), S((), f32)), lambda: f(x, half)),
        "static_kw": (lambda: f.lower(S((3,), f32), S((3,), f32), n=3), lambda: f(x, y, n=3)),
        "static_kw_called_pos": (lambda: f.lower(S((3,), f32), S((3,), f32), n=3), lambda: f(x, y, 3)),
        "committed_with_device": (lambda: f.lower(S((3,), f32, sharding=one), S((3,), f32)),
                                  lambda: f(committed, y)),
        "committed_without_device": (lambda: f.lower(S((3,), f32), S((3,), f32)), lambda: f(committed, y)),
    }[case]
    assert _aot_then_call(lambda: warm().compile(), call) == expected


@pytest.mark.parametrize("text,expected", [
    ("SingleDeviceSharding(cpu:1)", "device=1"),  # model.sharding_text, what watch records now
    ("SingleDeviceSharding(device=CpuDevice(id=1), memory_kind=device)", "device=1, memory_kind='device'"),  # older runs
])
def test_a_committed_arrays_device_is_read_from_either_recorded_form(text, expected):
    from jitscope.analyze.warmup_plan import _leaf_spec
    from jitscope.model import LeafSpec
    from jitscope.render.warmup_script import expression_text

    leaf = LeafSpec(path="x", shape=[4], dtype="float32", sharding=text)
    assert expression_text(_leaf_spec(leaf)) == f"S((4,), 'float32', {expected})"
