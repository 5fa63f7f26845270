"""Duplicate compiles (JW403, JW404) in real `python -m jitscope watch --json` runs, and their look-alikes."""

from __future__ import annotations

import dataclasses
import json

import pytest

from jitscope.collect.watch import read_events, read_programs
from jitscope.jaxmodel import fixes

PROGRAM = '''
import jax
import jax.numpy as jnp


@jax.jit
def weak(x, y):
    return jnp.sin(x) * y + 0.25


y = jnp.ones(3)
weak(1.0, y)                    # a Python scalar: weakly typed
weak(jnp.float32(1.0), y)       # an array: the same program, a new cache key


@jax.jit
def placed(x):
    return jnp.cos(x) * 3.0


placed(jnp.ones(3))                                          # uncommitted
placed(jax.device_put(jnp.ones(3), jax.devices()[0]))        # committed: the same program


def make_step(lr):
    @jax.jit
    def step(w):
        return w - lr * jnp.tanh(w)
    return step


w = jnp.ones(4)
make_step(0.1)(w)
make_step(0.01)(w)              # a closure with another captured float


@jax.jit
def shapes(x):
    return x * 2.0


shapes(jnp.ones(3))
shapes(jnp.ones(5))             # look-alike: another shape, another program


from functools import partial


@partial(jax.jit, static_argnames="n")
def unrolled(x, n):
    for _ in range(n):
        x = jnp.sin(x)
    return x


unrolled(jnp.ones(3), n=2)
unrolled(jnp.ones(3), n=3)      # look-alike: a static value that changes the program


for _ in range(2):
    jax.jit(lambda v: v + 1.5)(jnp.ones(2))     # a new function object, equal bindings, each time


@partial(jax.jit, static_argnames="verbose")
def ignores(x, verbose):
    return x * 4.0


ignores(jnp.ones(2), verbose=False)
ignores(jnp.ones(2), verbose=True)              # a static value the program does not use

# Found on optax's and chex's test suites (benchmarks/RESULTS.md): the same program, but jit's cache key
# differed by something the first version called "nothing (cache cleared)" or named only in part.
from jax import lax


def apply_if_positive(x):
    def grow(_):
        return x * 2.0

    def keep(_):
        return x
    return lax.cond(x[0] > 0, grow, keep, None)     # eager cond: closures new at each call (optax apply_if_finite)


apply_if_positive(jnp.ones(3))
apply_if_positive(jnp.ones(3))                      # the same program: its branches were traced again


def triple(v):
    return v * 3.0


def same(v):
    return v


for _ in range(2):
    lax.cond(jnp.ones(3)[0] > 0, triple, same, jnp.ones(3))   # look-alike: module-level branches, one compile


@jax.jit
def by_keyword(x, y):
    return x * y - 0.5


by_keyword(jnp.ones(2), jnp.ones(2))
by_keyword(x=jnp.ones(2), y=jnp.ones(2))            # by keyword: another cache entry (chex fake_test)


@jax.jit
def optional(x, extra=None):
    return x + 7.0


optional(jnp.ones(2), jnp.ones(5))
optional(jnp.ones(2))                               # an argument left out that the program never reads (optax)


@jax.jit
def twice_keyed(x):
    return x * 9.0


twice_keyed(2.0)                                                     # weakly typed, uncommitted
twice_keyed(jax.device_put(jnp.float32(2.0), jax.devices()[0]))      # strong and committed: two differences


@jax.jit
def unread(x, step):
    return x * 2.0


unread(jnp.ones(2), jnp.ones(3))
unread(jnp.ones(2), jnp.ones(4))      # step is never read (equinox test_jit): one program, a new cache key
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from conftest import run_cli

    d = tmp_path_factory.mktemp("dups")
    prog = d / "prog.py"
    prog.write_text(PROGRAM)
    r = run_cli("watch", "--live", "--json", str(d / "run.json"), "--events", str(d / "run.jsonl"), str(prog))
    assert r.returncode == 0, r.stderr
    return {"data": json.loads((d / "run.json").read_text()), "summary": r.stdout + r.stderr, "events": d / "run.jsonl",
            "live": [ln for ln in r.stderr.splitlines() if ln.startswith("jitscope: ")]}


def test_live_prints_each_duplicate_after_its_recompile_line(run):
    live = run["live"]
    weak = next(i for i, ln in enumerate(live) if ln.startswith("jitscope: JW403 weak: "))
    assert live[weak - 1].startswith("jitscope: recompile #1 weak ")  # the compile's own line comes first
    assert "same program as compile #0" in live[weak] and "weak type" in live[weak]
    assert any(ln.startswith("jitscope: JW404 make_step.<locals>.step: ") and "0.1 vs 0.01" in ln for ln in live)
    assert not any(" shapes: " in ln for ln in live if ln.startswith(("jitscope: JW403", "jitscope: JW404")))


def _findings(run, code, function):
    return [f for f in run["data"]["findings"] if f["code"] == code and f["function"].endswith(function)]


def test_weak_type_flip_is_a_duplicate_compile_with_the_wasted_seconds(run):
    (f,) = _findings(run, "JW403", "weak")
    second = run["data"]["events"][f["compile_index"]]
    assert f["details"]["key_difference"] == "weak type"
    assert "~f32[] -> f32[]" in f["message"]
    assert f["seconds"] == pytest.approx(sum(second["phases"].values())) and f["seconds"] > 0
    assert f["details"]["wasted_seconds"] == f["seconds"]
    assert "JW403" in run["summary"]  # the console summary shows it


def test_committed_array_is_a_duplicate_compile(run):
    (f,) = _findings(run, "JW403", "placed")
    assert f["details"]["key_difference"] == "sharding"
    assert f["seconds"] > 0


def test_constant_only_difference_names_both_values(run):
    (f,) = _findings(run, "JW404", "step")
    assert f["details"]["constants"] == [{"a": "0.1 : f32", "b": "0.01 : f32"}]
    assert "0.1 vs 0.01 baked in as a constant" in f["message"]
    assert "inject_hyperparams" in f["fix"]["description"]
    assert f["seconds"] > 0
    assert not _findings(run, "JW403", "step")


def test_rebuilt_function_and_ignored_static_value(run):
    (f,) = _findings(run, "JW403", "<lambda>")
    assert f["details"]["key_difference"] == "a new function object (equal bindings: the same function rebuilt)"
    assert f["fix"]["title"] == fixes.CREATE_ONCE.title  # the catalogue's, as lint's JS203/JS204
    (g,) = _findings(run, "JW403", "ignores")
    assert g["details"]["key_difference"] == "static value"
    assert g["details"]["differences"] == ["verbose: False -> True"]
    assert g["fix"]["title"] == "drop the argument from static_argnums/static_argnames so that it is traced"


def test_look_alikes_stay_quiet(run):
    for fn in ("shapes", "unrolled"):
        assert not _findings(run, "JW403", fn) and not _findings(run, "JW404", fn), fn
    # and they were fingerprinted: quiet because the programs differ, not for want of a fingerprint
    events = [e for e in run["data"]["events"] if e["function"] in ("shapes", "unrolled")]
    assert len(events) == 4 and all(e["fingerprint"] for e in events)
    assert len({e["constants_blind_fingerprint"] for e in events}) == 4


def test_programs_table_and_events_file(run):
    data = run["data"]
    prints = {e["fingerprint"] for e in data["events"]}
    table = {p["fingerprint"] for p in data["programs"]}
    assert prints == table  # each distinct program once
    assert len(data["programs"]) < len(data["events"])  # the duplicates share an entry
    events = read_events(run["events"])
    assert [e.fingerprint for e in events] == [e["fingerprint"] for e in data["events"]]
    programs = read_programs(run["events"])
    assert set(programs) == table
    assert all(p.lines() for p in programs.values())


def test_the_same_program_for_another_device_is_not_a_duplicate(tmp_path):
    from conftest import run_cli

    prog = tmp_path / "devices.py"
    prog.write_text(
        "import jax, jax.numpy as jnp\n"
        "f = jax.jit(lambda x: x * 3.0)\n"
        "d0, d1 = jax.devices()[:2]\n"
        "f(jax.device_put(jnp.ones(3), d0))\n"
        "f(jax.device_put(jnp.ones(3), d1))   # another device: its own executable, needed\n"
        "f(jnp.ones(3))                        # uncommitted on the default device: the same program again\n")
    out = tmp_path / "r.json"
    r = run_cli("watch", "-q", "--json", str(out), str(prog),
                env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    found = [f for f in data["findings"] if f["code"] in ("JW403", "JW404")]
    assert len(data["events"]) == 3
    assert [(f["code"], f["compile_index"], f["details"]["key_difference"]) for f in found] == [
        ("JW403", 2, "sharding")]
    # JAX 0.10 compiles for the second device from the first lowering (no program to fingerprint); where a
    # JAX lowers it again, the fingerprints are equal and the other placement still keeps it quiet:
    from jitscope.analyze.duplicates import duplicate_findings
    from jitscope.results import load_result

    events = load_result(out).events
    events[1].fingerprint = events[0].fingerprint
    events[1].constants_blind_fingerprint = events[0].constants_blind_fingerprint
    assert [(f.code, f.compile_index) for f in duplicate_findings(events)] == [("JW403", 2)]
    sig = events[1].signature
    events[1].signature = dataclasses.replace(sig, leaves=(dataclasses.replace(sig.leaves[0], sharding=None),))
    # as if it were uncommitted: now a duplicate
    assert [(f.code, f.compile_index) for f in duplicate_findings(events)] == [("JW403", 1), ("JW403", 2)]


def test_findings_are_live_in_the_python_api():
    import jax
    import jax.numpy as jnp

    import jitscope

    @jax.jit
    def h(x, y):
        return jnp.tanh(x) + y

    with jitscope.watch() as w:
        h(2.0, jnp.ones(2))
        assert not [f for f in w.result().findings if f.code == "JW403"]
        h(jnp.float32(2.0), jnp.ones(2))
        (f,) = [f for f in w.result().findings if f.code == "JW403"]  # before the block ends
    assert f.function.endswith("h") and f.compile_index == 1 and f.details["key_difference"] == "weak type"
    assert w.result().programs and all(p.fingerprint for p in w.result().programs)


def test_eager_control_flow_names_the_eager_call_not_a_cleared_cache(run):
    (f,) = _findings(run, "JW403", "cond")
    assert f["details"]["key_difference"] == "lax.cond called outside jit (its branch functions traced again at each call)"
    assert f["fix"]["title"] == "jit the function that calls lax.cond"
    assert "clear_caches" not in json.dumps(f) and "nothing" not in f["message"]
    look_alike = [e for e in run["data"]["events"] if e["function"] == "cond" and "triple@" in (e["bindings"] or "")]
    assert len(look_alike) == 1  # module-level branches: traced once, compiled once, nothing to report
    reason = run["data"]["events"][f["compile_index"]]["reason"]  # the recompile's reason says it too
    assert "eager cond outside jit" in reason["detail"] and "cleared" not in reason["detail"]


def test_keyword_vs_positional_is_named(run):
    (f,) = _findings(run, "JW403", "by_keyword")
    assert f["details"]["key_difference"] == "arguments passed by keyword in one call and by position in the other"
    assert f["details"]["differences"] == ["keywords: (none) -> x, y"]
    assert "clear_caches" not in json.dumps(f)
    reason = run["data"]["events"][f["compile_index"]]["reason"]
    assert "by keyword" in reason["detail"] and "cleared" not in reason["detail"]


def test_an_unread_argument_left_out_is_named(run):
    (f,) = _findings(run, "JW403", "optional")
    assert f["details"]["key_difference"].startswith("an argument passed in one call and left out in the other")
    assert f["details"]["differences"] == ["extra: PyTreeDef(*) -> (absent)"]


def test_every_difference_is_named(run):
    (f,) = _findings(run, "JW403", "twice_keyed")
    assert f["details"]["key_difference"] == "weak type and sharding"
    assert any("~f32[] -> f32[]" in d for d in f["details"]["differences"])
    assert any("uncommitted -> " in d for d in f["details"]["differences"])


def test_a_shape_change_of_an_unread_argument_is_named(run):
    (f,) = _findings(run, "JW403", "unread")
    assert f["details"]["key_difference"] == "the shape of an argument the program does not read"
    assert f["details"]["differences"] == ["step: f32[3] -> f32[4]"]
    assert f["fix"]["title"] == "drop the argument the program does not read, or pass it with one shape"
