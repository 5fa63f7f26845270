"""`jitscope warmup` and `jitscope watch --warmup`: a warm-up script written from a real watch run, run
before the real program, leaves no compile of what it covers; what it cannot cover is listed, not guessed.
(The training scripts run as ``python train.py``, warmed at their main guard: tests/test_warmup_training.py.)

Compiles are counted by the program itself with its own ``jax.monitoring`` listener (per ``fun_name``),
not by jitscope, and the same program run without the warm-up is the control that makes them non-zero.
"""

from __future__ import annotations

import ast
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
double = jax.jit(lambda x: x * 2)           # a lambda, held by a module global


@jax.jit
def pair_sum(p):                            # a namedtuple: a custom pytree node
    return p.a + p.b


def apply_twice(x):                         # jits a new function at each call: nothing holds it by name
    def triple(v):
        return v * 3
    return jax.jit(triple)(x)
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
           model.scale(jax.device_put(x, jax.devices()[0]), 0.5),  # a committed array
           model.double(x), model.pair_sum(model.Pair(x, x))]
    if not covered_only:
        out += [model.apply_twice(x), local_norm(x)]
    return out


for _ in range(3):
    for size in (4, 8):
        jax.block_until_ready(serve(size))
if "--extra" in sys.argv:
    jax.block_until_ready(model.smooth(jnp.ones(16), n=3))   # a shape the recorded run never had
print(json.dumps(dict(counts)))
'''

COVERED = ("jit(predict)", "jit(smooth)", "jit(_scale)", "jit(<lambda>)", "jit(pair_sum)")
UNCOVERED = {"jit(triple)": 6, "jit(local_norm)": 2}  # a new function per call; __main__ of a script without a guard


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
    # the control: each function once per size, scale once per size for each commitment
    assert [counts.get(f, 0) for f in COVERED] == [2, 2, 4, 2, 2], counts


def _xfail_if_jax06_recompiled(counts: list[int]) -> None:
    """Seen about 1 run in 8 on JAX 0.6.2, never on 0.8.3 or 0.10.2 (16 runs each): the call with the
    committed array (``_scale``) compiles again after its ahead-of-time compile; the cause is not known.
    Any other count still fails the test."""
    if jax.__version_info__ < (0, 8) and counts == [0, 0, 1, 0, 0]:
        pytest.xfail("JAX 0.6.2 now and then compiles the committed-array call again after its AOT compile")


def test_check_mode_covered_functions_compile_nothing_and_the_rest_is_listed(project):
    d, _ = project
    r = run_cli("watch", "--warmup", "warmup.py", "--json", "check.json", "serve.py", cwd=d)
    assert r.returncode == 3, r.stderr  # a function jitted anew at each call, and __main__ with no main guard
    counts = _counts(r.stdout)  # the program's own count, not jitscope's
    _xfail_if_jax06_recompiled([counts.get(f, 0) for f in COVERED])
    assert [counts.get(f, 0) for f in COVERED] == [0, 0, 0, 0, 0], counts
    assert {f: counts.get(f, 0) for f in UNCOVERED} == UNCOVERED, counts
    result = json.loads((d / "check.json").read_text())
    warm = result["warmup"]
    assert warm["script"] == "warmup.py" and warm["exit_code"] == 0
    assert warm["compiles"] == 12 and warm["missed"] == 8  # 12 jit calls ahead of time
    assert warm["main_entries"] == 2 and warm["main_guard"] is False  # serve.py has no main guard
    assert sorted(e["function"] for e in result["events"]) == sorted(["apply_twice.<locals>.triple"] * 6
                                                                     + ["local_norm"] * 2)
    missed = [line for line in r.stderr.splitlines() if "missed 8 compiles" in line]
    assert len(missed) == 1 and "triple (model.py:" in missed[0] and "local_norm (serve.py:" in missed[0]
    assert "2 entries of the program's own __main__ not warmed: it has no" in " ".join(r.stderr.split())


def test_check_mode_exits_0_when_the_warmup_covers_every_compile(project):
    d, _ = project
    r = run_cli("watch", "--warmup", "warmup.py", "serve.py", "--covered-only", cwd=d)
    counts = [_counts(r.stdout).get(f, 0) for f in COVERED]
    _xfail_if_jax06_recompiled(counts)
    assert r.returncode == 0, r.stderr
    assert counts == [0, 0, 0, 0, 0]
    assert "the program then compiled nothing: the warm-up covered every compile" in " ".join(r.stderr.split())


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
    assert [_counts(r.stdout).get(f, 0) for f in COVERED] == [0, 0, 0, 0, 0]
    # the program here is `python -c`: serve.py's own local_norm waits (its __main__ is not this process's)
    assert "warmup: compiled 12 of 14" in r.stderr and "2 of the program's __main__ wait for it" in r.stderr


def test_the_script_runs_alone_and_lists_what_it_cannot_import(project):
    d, gen = project
    assert any("triple" in line and "no module-level object holds" in line for line in gen.stdout.splitlines()), \
        gen.stdout
    assert "14 ahead-of-time compiles covering 14 of 20 recorded compiles" in gen.stdout
    assert "functions: 6 of 7" in gen.stdout and "2 of the program's own __main__" in gen.stdout
    text = (d / "warmup.py").read_text()
    calls = ast.literal_eval(_table(text, "CALLS"))  # data only: literals
    assert "THREADS = 2" in text
    by_function = {}
    for c in calls:
        by_function.setdefault(c["function"], []).append(c)
    smooth = by_function["smooth"][0]
    assert smooth["kwargs"]["n"] == ("literal", 3) and smooth["module"] == "model" and smooth["path"] == ("smooth",)
    assert by_function["_scale"][0]["path"] == ("scale",)  # the module global that jits it
    leaves = [leaf for c in by_function["_scale"] for a in c["args"] for leaf in a[2]]
    assert ("array", (), "float32", True, None, None) in leaves  # the Python float: weak-typed
    memory = jax.devices()[0].default_memory().kind  # "device" (JAX 0.6: "unpinned_host" on CPU)
    assert ("array", (4,), "float32", False, 0, memory) in leaves  # the committed array: its device
    pair = by_function["pair_sum"][0]["args"][0][1]  # the namedtuple's node type, by module and name
    assert pair[0] == ("ref", "model", "Pair", 0)
    assert [c["module"] for c in by_function["local_norm"]] == ["__main__", "__main__"]
    listed = ast.literal_eval(_table(text, "NOT_COVERED"))
    assert [row[0] for row in listed] == ["apply_twice.<locals>.triple"]  # listed as data, never compiled
    r = _python(d, "warmup.py", "--threads", "1")
    assert r.returncode == 0, r.stderr
    assert "warmup: compiled 12 of 14" in r.stderr  # the two of serve.py's __main__ wait for the program


def _table(text: str, name: str) -> str:
    tree = ast.parse(text)
    (node,) = [n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == name]
    return ast.get_source_segment(text, node.value)


GUARDED = SERVE.replace("""for _ in range(3):
    for size in (4, 8):
        jax.block_until_ready(serve(size))
""", """

def main():
    counts.clear()  # the program's own compiles: from here (the warm-up ran at the main guard, before)
    for _ in range(3):
        for size in (4, 8):
            jax.block_until_ready(serve(size))


if __name__ == "__main__":
    main()
""")


def test_the_script_runs_the_program_warmed_through_its_main_guard(project):
    """`python warmup.py PROGRAM ARGS`: the program runs as __main__, and its own functions are warmed at its
    main guard, with the program's own objects."""
    d, _ = project
    assert "def main():" in GUARDED
    (d / "guarded.py").write_text(GUARDED)
    run = run_cli("watch", "-q", "--json", "guarded.json", "guarded.py", cwd=d)
    assert run.returncode == 0, run.stderr
    assert run_cli("warmup", "guarded.json", "-o", "warm_guarded.py", cwd=d).returncode == 0
    r = _python(d, "warm_guarded.py", "guarded.py")
    assert r.returncode == 0, r.stderr
    counts = _counts(r.stdout)
    assert [counts.get(f, 0) for f in COVERED] == [0, 0, 0, 0, 0] and counts.get("jit(local_norm)", 0) == 0, counts
    assert counts["jit(triple)"] == 6  # not warmable: a new function object per call
    assert "warmup: compiled 12 of 14" in r.stderr and "warmup: compiled 2 of 2" in r.stderr


def test_events_file_gives_the_same_script(project):
    d, _ = project
    r = run_cli("warmup", "run.jsonl", "-o", "from_events.py", cwd=d)
    assert r.returncode == 0, r.stderr
    a = (d / "warmup.py").read_text()
    b = (d / "from_events.py").read_text()
    assert _table(a, "CALLS") == _table(b, "CALLS") and _table(a, "NOT_COVERED") == _table(b, "NOT_COVERED")


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
    calls = {c.function: c for c in p.calls}
    assert "tree" in calls, [(s.function, s.reason) for s in p.skipped]
    call = calls["tree"]
    assert (call.module, call.path) == ("edge_mod", ["tree"])
    (t, d) = call.args  # a tuple holding None, a dict with int keys: through their treedefs
    assert t[0] == d[0] == "tree" and [leaf[1] for leaf in t[2]] == [(3,)] and len(d[2]) == 2
    assert d[1][1] == ("list", (("literal", 1), ("literal", 2)))  # the dict node's aux data: its keys
    assert call.root == str(tmp_path) and call.kwargs == {}
    assert calls["_base"].path == ["bound"]  # the partial is the module global's own: its compile is that object's
    key = calls["keyed"].args[0][2][0]
    assert key[:3] == ("array", (), "key:threefry2x32")  # a typed PRNG key array, rebuilt through its impl
    reasons: dict[str, str] = {}
    for s in p.skipped:  # one function may have several
        reasons[s.function] = reasons.get(s.function, "") + s.reason + "; "
    assert "compared by identity" in reasons["configured"]
    assert "compiled under" in reasons["loss"]
    assert "no module-level object holds" in reasons["make.<locals>.inner"]
    assert "compared by identity" in reasons["Model.apply"]  # found as Model.apply; its static self is not
    assert p.covered == 3 and p.compiles == len(w.events)
    # A run recorded before calls were recorded as values: left out, never guessed.
    old = [dataclasses.replace(e, rebuild=None) for e in w.events if e.function == "tree"]
    assert "older jitscope" in plan(old).skipped[0].reason


def _aot_then_call(warm, call, name="jit(f)") -> int:
    """Backend compiles of ``call()`` after ``warm()``, counted with jax.monitoring for the jitted ``f`` only."""
    import jax

    seen: list[str] = []

    def listener(event, duration, **kw):
        if event == "/jax/core/compile/backend_compile_duration" and kw.get("fun_name") == name:
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


def test_a_committed_arrays_device_is_recorded_and_rebuilt():
    """A committed array's record holds its device id and memory kind; the runtime rebuilds a spec committed to
    that device, which is what jit keys its cache on (the truth table above)."""
    import json

    import jax
    import jax.numpy as jnp

    import jitscope
    from jitscope import _warmup_runtime as runtime
    from jitscope.analyze.warmup_values import from_record

    dev = jax.devices()[-1]
    with jitscope.watch() as w:
        jax.jit(lambda v: v + 1)(jax.device_put(jnp.ones(4), dev))
    (e,) = w.events
    assert "no module-level object" in json.loads(e.rebuild)["why"]  # a lambda jitted at the call
    spec = runtime.rebuild(from_record(["array", [4], "float32", False, dev.id, dev.default_memory().kind]))
    assert spec.sharding == jax.sharding.SingleDeviceSharding(dev) and spec.shape == (4,)


NODES = '''
import collections
import dataclasses

import jax

Pair = collections.namedtuple("Pair", "a b")


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Registered:                            # a register_dataclass node: a static field as its aux data
    x: object
    n: int = dataclasses.field(metadata=dict(static=True))


class Custom:                                # a register_pytree_node node
    def __init__(self, a, tag):
        self.a, self.tag = a, tag


jax.tree_util.register_pytree_node(Custom, lambda c: ((c.a,), c.tag), lambda tag, kids: Custom(kids[0], tag))


@jax.jit
def f(r, c, od, p, t):
    return r.x + c.a + od["a"] + p.a + p.b[1] + t[0]
'''


def test_every_kind_of_tree_node_rebuilds_and_warms_its_call(tmp_path, monkeypatch):
    """Each kind of pytree node JAX has (None, tuple, namedtuple, list, dict, custom, registered dataclass) is
    rebuilt through the runtime to the program's own treedef, and its ahead-of-time compile leaves the program's
    call nothing to compile. (JAX 0.6 has no ``PyTreeDef.from_node_data_and_children``: there the runtime builds
    the treedef from its node list, a registered dataclass node marked by the recorder.)"""
    import collections

    import jax
    import jax.numpy as jnp

    import jitscope
    from jitscope import _warmup_runtime as runtime
    from jitscope.analyze.warmup_plan import plan

    (tmp_path / "nodes_mod.py").write_text(NODES)
    monkeypatch.syspath_prepend(str(tmp_path))
    import nodes_mod as m

    x = jnp.ones(3)
    args = (m.Registered(x, 3), m.Custom(x, "k"), collections.OrderedDict(b=x, a=x), m.Pair(x, [x, x]), (x, None))
    with jitscope.watch() as w:
        m.f(*args)
    p = plan(w.events)
    assert not p.skipped and len(p.calls) == 1, p.skipped
    rebuilt = [runtime.rebuild(a) for a in p.calls[0].args]
    assert jax.tree_util.tree_structure(rebuilt) == jax.tree_util.tree_structure(list(args))
    assert _aot_then_call(lambda: m.f.lower(*rebuilt).compile(), lambda: m.f(*args), "jit(f)") == 0
