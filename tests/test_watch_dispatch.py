"""JW501: jit calls that never reach JAX's C++ dispatch fast path (real jax.jit on CPU, in-process).

The subprocess run of tests/fixtures/watch_findings.py (test_watch_findings.py) covers the CLI, the JSON,
the trace and the look-alikes of watch_findings_clean.py; here: causes, thresholds, what is never
counted, the cost on fast-path hits, and the renderers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitscope
from jitscope import _jaxcompat as compat
from jitscope.analyze.dispatch import DISPATCH_MIN_CALLS
from jitscope.collect import dispatch
from jitscope.results import load_result
from jitscope.schema import validate

THIS = Path(__file__).resolve()


def _line(marker: str) -> int:
    for i, text in enumerate(THIS.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return i
    raise AssertionError(marker)


def _jw501(w):
    return [f for f in w.result().findings if f.code == "JW501"]


def _noop(*_):
    pass


def test_debug_callback_in_a_hot_loop_is_flagged_with_line_cause_and_cost():
    @jax.jit
    def step(x):
        jax.debug.callback(_noop, x)  # callback-site
        return x + 1

    x = jnp.ones(3)
    with jitscope.watch(slow_compile=600) as w:
        for _ in range(60):
            x = step(x)  # hot-call
    (f,) = _jw501(w)
    assert f.function == "test_debug_callback_in_a_hot_loop_is_flagged_with_line_cause_and_cost.<locals>.step"
    assert f.severity == "warning" and f.location.file == str(THIS) and f.location.line == _line("hot-call")
    assert f.source == "x = step(x)  # hot-call"
    d = f.details
    assert d["cause"] == "effects" and d["blockers"] == ["unordered_effects"]
    assert d["slow_calls"] == 59  # the first call traced and compiled: the compile path
    (site,) = d["effects"]
    assert site["primitive"] == "debug_callback" and site["effect"] == "DebugEffect"
    assert site["line"] == _line("callback-site") and site["file"] == str(THIS)
    assert f"line {_line('callback-site')}" in f.message and "cause: the program has side effects" in f.message
    assert f.fix is not None and f.fix.location.line == _line("callback-site")
    # measured: each slow call; reference: a fast call (measured once); lost: the difference
    assert d["fast_call_seconds"] > 0 and d["fast_call_basis"] == "reference"
    assert d["seconds_per_call"] > d["fast_call_seconds"]
    # lost: what each call paid beyond a fast call (its execution, if any, left out: analyze/dispatch._paid)
    assert d["paid_seconds_per_call"] <= d["seconds_per_call"]
    assert d["seconds_lost"] == pytest.approx(min(59 * (d["paid_seconds_per_call"] - d["fast_call_seconds"]),
                                                  d["total_seconds"]))
    assert d["total_seconds"] >= d["seconds_lost"]
    assert f.seconds == d["seconds_lost"] > 0
    assert f.compile_index is None and 0 <= f.timestamp <= w.result().wall_seconds


def test_ordered_io_callback_is_named_as_an_ordered_effect():
    from jax.experimental import io_callback

    @jax.jit
    def ask(x):
        io_callback(lambda v: np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)  # io-site
        return x * 2

    with jitscope.watch(slow_compile=600) as w:
        for _ in range(20):
            ask(jnp.ones(2))
    (f,) = _jw501(w)
    assert f.details["cause"] == "effects" and f.details["blockers"] == ["ordered_effects"]
    (site,) = f.details["effects"]
    assert site["primitive"] == "io_callback" and site["effect"] == "OrderedIOEffect"
    assert site["line"] == _line("io-site") and "an ordered effect" in f.message


def test_debug_key_reuse_is_named(monkeypatch):
    monkeypatch.setattr("jitscope.collect.dispatch._FAST", [])  # the reference measured in this run, under the flag
    @jax.jit
    def draw(x):  # no key at all: with key-reuse checking on, every jitted call runs through Python
        return x + 1

    x = jnp.ones(2)
    with jax.debug_key_reuse(True), jitscope.watch(slow_compile=600) as w:
        for _ in range(3000):  # the flag's cost is a large share of this run (beside one compile): worth saying
            draw(x)
    (f,) = _jw501(w)
    assert f.details["cause"] == "debug_key_reuse" and "jax_debug_key_reuse" in f.message
    assert f.details["effects"] == []


def test_the_reference_fast_call_is_fast_whatever_settings_the_program_chose(monkeypatch):
    """The reference a slow call is compared with is measured once, when a finding first needs it, maybe
    inside the user's jax.debug_key_reuse(True): measured there, it was itself a Python-path call (36 us
    against 4 us here), every loss came out nil and JW501 on the flag depended on which test ran first."""
    from jitscope.collect import dispatch

    monkeypatch.setattr(dispatch, "_FAST", [])
    f = jax.jit(lambda v: v * 3)
    x = jnp.ones(3)
    with jax.debug_key_reuse(True):
        ref = dispatch.fast_call_seconds()
        assert jax.config.jax_debug_key_reuse  # the program's setting, back
        f(x).block_until_ready()
        slow = float("inf")
        for _ in range(5):  # the same kind of call under the flag: the Python path, best of 5 as the reference
            t = time.perf_counter()
            for _ in range(200):
                y = f(x)
            y.block_until_ready()
            slow = min(slow, (time.perf_counter() - t) / 200)
    assert ref is not None and ref < slow / 2
    assert not jax.config.jax_debug_key_reuse


def test_debug_key_reuse_the_program_chose_is_not_advice_when_its_cost_is_small_in_the_run(monkeypatch):
    """jax_debug_key_reuse is a debugging setting whose price (every jitted call through Python) is
    documented: a program that turned it on is told only when that price is a material share of its run."""
    from jitscope.analyze.dispatch import MIN_SECONDS_LOST, OPTED_IN_MIN_SHARE

    @jax.jit
    def draw(x):
        return x + 1

    @jax.jit
    def work(a):
        return jnp.tanh(a @ a) @ a

    def run():  # 300 cheap calls (enough for a loss) beside 40 heavy ones (about 1.5 GFLOP each): the flag's
        # price is a small share of the run, with a margin for a loaded machine, where both parts slow down
        x, a = jnp.ones(2), jnp.ones((768, 768))
        with jax.debug_key_reuse(True), jitscope.watch(slow_compile=600) as w:
            for _ in range(300):
                draw(x)
            for _ in range(40):
                a = work(a) * 1e-3
            a.block_until_ready()
        return w

    with monkeypatch.context() as m:  # without the share rule (as before it): the calls are reported
        m.setattr("jitscope.analyze.dispatch.OPTED_IN", ())
        assert [f for f in _jw501(run()) if f.function.endswith("draw")]
    w = run()
    assert not [f for f in _jw501(w) if f.function.endswith("draw")]
    assert OPTED_IN_MIN_SHARE == 0.10 and MIN_SECONDS_LOST == 0.001


def test_opted_in_causes_need_a_share_of_the_run():
    from jitscope.analyze.dispatch import off_fast_path
    from jitscope.collect.dispatch import SlowPathFunction

    rec = SlowPathFunction("f", 1, None, calls=1000, seconds=1000 * 2e-5, samples=[2e-5] * 1000,
                           blockers={("debug_key_reuse",): 1000})  # 15 ms lost against 5 us fast calls
    assert off_fast_path([rec], lambda: 5e-6, wall_seconds=1.0) == []
    (f,) = off_fast_path([rec], lambda: 5e-6, wall_seconds=0.1)
    assert f.details["cause"] == "debug_key_reuse"
    assert off_fast_path([rec], lambda: None, wall_seconds=0.1) == []  # no measured loss: no claim
    effects = SlowPathFunction("g", 2, None, calls=1000, seconds=1000 * 2e-5, samples=[2e-5] * 1000,
                               blockers={("unordered_effects",): 1000})
    assert len(off_fast_path([effects], lambda: 5e-6, wall_seconds=1.0)) == 1  # not a setting: unchanged


def test_threshold_counts_only_slow_calls_that_neither_traced_nor_compiled():
    @jax.jit
    def few(x):
        jax.debug.callback(_noop, x)
        return x

    x = jnp.ones(2)
    with jitscope.watch(slow_compile=600) as w:
        for _ in range(DISPATCH_MIN_CALLS):  # the first traced and compiled: one short of the threshold
            few(x)
    assert _jw501(w) == []
    with w:
        few(x)  # the same session resumed: now at the threshold
    (f,) = _jw501(w)
    assert f.details["slow_calls"] == DISPATCH_MIN_CALLS


def test_look_alikes_are_not_flagged():
    @jax.jit
    def shown(x):
        jax.debug.print("x = {}", x)  # outside any loop: called once
        return x + 1

    @jax.jit
    def plain(x):
        return x * 2

    @jax.jit
    def growing(x):
        jax.debug.callback(_noop, x)  # in a loop, but each call has a new shape: every call compiles
        return x + 1

    @jax.jit
    def inner(x):
        jax.debug.callback(_noop, x)
        return jnp.sin(x)

    def loss(x):  # not jitted: inner is called with tracers, every time through Python
        return inner(x).sum()

    with jitscope.watch(slow_compile=600) as w:
        shown(jnp.ones(2))
        y = jnp.ones(3)
        for _ in range(300):
            y = plain(y)
        for n in range(1, 13):
            growing(jnp.ones(n))
        for _ in range(15):
            jax.grad(loss)(jnp.ones(3))
    assert _jw501(w) == []
    assert w._session._dispatch.functions == {} or all(
        r.calls < DISPATCH_MIN_CALLS for r in w._session._dispatch.functions.values())


def test_fast_path_hits_never_reach_the_probe_and_the_hook_is_removed():
    from jax._src import pjit

    before = pjit._get_fastpath_data
    seen = []
    original = dispatch.DispatchProbe._on_fastpath

    @jax.jit
    def hot(x):
        return x + 1

    x = jnp.ones(3)
    with jitscope.watch(slow_compile=600) as w:
        probe = w._session._dispatch
        probe._on_fastpath = lambda *a: (seen.append(a[1]), original(probe, *a))
        assert pjit._get_fastpath_data is not before
        x = hot(x)  # traces and compiles: Python (and jnp's own jitted add inside the trace)
        after_compile = list(seen)
        for _ in range(500):
            x = hot(x)
    assert after_compile and after_compile[-1] is True
    assert seen == after_compile  # 500 C++ cache hits ran nothing of ours
    assert pjit._get_fastpath_data is before
    assert probe not in dispatch._attached


def test_nested_watches_both_see_the_calls():
    @jax.jit
    def step(x):
        jax.debug.callback(_noop, x)
        return x

    x = jnp.ones(2)
    with jitscope.watch(slow_compile=600) as outer:
        step(x)
        with jitscope.watch(slow_compile=600) as inner:
            for _ in range(DISPATCH_MIN_CALLS):
                step(x)
        for _ in range(5):
            step(x)
    assert [f.details["slow_calls"] for f in _jw501(inner)] == [DISPATCH_MIN_CALLS]
    assert [f.details["slow_calls"] for f in _jw501(outer)] == [DISPATCH_MIN_CALLS + 5]


def test_rendered_in_console_json_and_html(tmp_path):
    from jitscope.render import render

    @jax.jit
    def logged(x):
        jax.debug.callback(_noop, x)
        return x + 1

    x = jnp.ones(3)
    with jitscope.watch(slow_compile=600) as w:
        for _ in range(30):
            x = logged(x)
    result = w.result()
    text = render(result, "console", width=200)
    assert "JW501 warning" in text and "lost off the fast path" in text and "trace+compile" not in text
    assert "move the callback out of the hot function" in text
    data = json.loads(render(result, "json"))
    validate(data)
    (f,) = [f for f in data["findings"] if f["code"] == "JW501"]
    assert f["details"]["cause"] == "effects" and f["details"]["slow_calls"] == 29
    path = tmp_path / "run.json"
    result.save(path)
    (back,) = [f for f in load_result(path).findings if f.code == "JW501"]
    assert back.details == _jw501(w)[0].details
    html = render(result, "html")
    assert '<section id="jw501-off-fast-path">' in html and "x = logged(x)" in html


def test_fastpath_blockers_on_installed_jax():
    from jax._src import pjit

    seen = []
    uninstall = compat.install_fastpath_hook(lambda effects, fast, exe, pgle: seen.append(
        (fast, () if fast else compat.fastpath_blockers(exe, effects, pgle))))
    try:
        jax.jit(lambda x: x + 1)(jnp.ones(2))
        jax.jit(lambda x: (jax.debug.callback(_noop, x), x)[1])(jnp.ones(2))
        jax.jit(lambda x: (jax.debug.callback(_noop, x, ordered=True), x)[1])(jnp.ones(2))
    finally:
        uninstall()
    assert pjit._get_fastpath_data.__module__ == "jax._src.pjit"
    assert seen[-3:] == [(True, ()), (False, ("unordered_effects",)), (False, ("ordered_effects",))]


def test_a_jax_without_the_fastpath_hook_runs_without_jw501(monkeypatch, capsys):
    monkeypatch.setattr(compat.dispatch, "_FASTPATH_HOOK", "_get_fastpath_data_moved")
    monkeypatch.setattr(compat._base, "_SAID", set())

    @jax.jit
    def step(x):
        jax.debug.callback(_noop, x)
        return x

    with jitscope.watch(slow_compile=600) as w:
        for _ in range(20):
            step(jnp.ones(2))
    assert _jw501(w) == [] and len(w.result().events) == 1
    err = capsys.readouterr().err
    assert "lacks a hook" in err and "JW501" in err


def test_analyzer_unknown_cause_and_the_reference_only_when_something_is_reported():
    """The analyzer is a pure function over the collector's records: a call JAX had made fast-path
    ready that still came back through Python (an empty blocker tuple) has an unknown cause."""
    from jitscope.analyze.dispatch import off_fast_path
    from jitscope.collect.dispatch import SlowPathFunction

    asked = []
    hot = SlowPathFunction("f", 1, None, calls=12, seconds=5e-3, samples=[1e-4] * 11 + [4e-3], blockers={(): 12})
    few = SlowPathFunction("g", 2, None, calls=DISPATCH_MIN_CALLS - 1, seconds=1e-3, samples=[1e-4],
                           blockers={("unordered_effects",): DISPATCH_MIN_CALLS - 1})
    assert off_fast_path([few], lambda: asked.append(1) or 1e-6) == [] and asked == []
    (f,) = off_fast_path([hot, few], lambda: 2e-6)
    assert f.function == "f" and f.details["cause"] == "unknown" and "cause: unknown" in f.message
    assert f.details["seconds_lost"] == pytest.approx(12 * (1e-4 - 2e-6))  # the median: one long call is noise
    (g,) = off_fast_path([hot], lambda: None)  # no reference: no claim about time lost
    assert g.details["seconds_lost"] is None and "lost" not in g.message and g.seconds == 0.0


def test_a_nil_loss_is_not_reported():
    """Slow-path calls that cost no more than a fast call (a small program under jax_debug_key_reuse the
    program turned on itself) lost nothing measurable: no JW501 saying "0 s lost"."""
    from jitscope.analyze.dispatch import MIN_SECONDS_LOST, off_fast_path
    from jitscope.collect.dispatch import SlowPathFunction

    cheap = SlowPathFunction("f", 1, None, calls=50, seconds=50 * 3e-6, samples=[3e-6] * 50,
                             blockers={("debug_key_reuse",): 50})
    assert off_fast_path([cheap], lambda: 5e-6) == []
    near = SlowPathFunction("g", 2, None, calls=50, seconds=50 * 2e-5, samples=[2e-5] * 50,
                            blockers={("debug_key_reuse",): 50})
    assert 50 * (2e-5 - 5e-6) < MIN_SECONDS_LOST and off_fast_path([near], lambda: 5e-6) == []
    costly = SlowPathFunction("h", 3, None, calls=100, seconds=100 * 2e-5, samples=[2e-5] * 100,
                              blockers={("debug_key_reuse",): 100})
    (h,) = off_fast_path([costly], lambda: 5e-6, wall_seconds=0.01)  # 100 x 15 us = 1.5 ms lost, 15% of the run
    assert h.details["seconds_lost"] >= MIN_SECONDS_LOST and "0 s lost" not in h.message
