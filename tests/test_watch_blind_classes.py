"""Pitfall classes watch was blind to (issue #24 item 3), on real programs under real jax.jit; each fixture
marks its expected findings with ``# expect: CODE function`` (``# expect312:``/``# expect313:`` on Python
3.12+/3.13+ only).

* JW107: a non-hashable static argument, an error JAX's C++ dispatch raises at the jitted call. Through a
  JAX API (a jitted call inside another trace) the exception boundary sees it on every Python; raised
  straight into the program's frame (a direct call, or under equinox.filter_jit) it is seen on Python 3.12+
  through sys.monitoring, and on 3.11 not at all (docs/pitfalls.md says why).
* JW506: a jax.pure_callback run at every call of a jitted step. JAX 0.10+ dispatch such a program from the
  C++ fast path, so JW501 never fires on it; the round trip is counted at JAX's callback implementation. The
  same callback inside a compiled loop is JW503's, and one run a few times is not advice.
* JW507: a clock read closing a timed region while a result made in it is still running (asynchronous
  dispatch); a region that blocks first, or a result made after the closing read, is not one. In a function
  on Python 3.13+ only (before, reading a function frame's locals would keep them alive).
* JW505 through attributes: the same NumPy array held by ``obj.attr`` passed from a loop is copied on every
  call; an attribute a method rebinds in the loop is new data.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jitscope
from jitscope.analyze.pitfalls import finding_classes
from jitscope.results import load_result

FIXTURES = Path(__file__).parent / "fixtures"
MONITORING = sys.version_info >= (3, 12)


def _expected(path: Path) -> set[tuple[str, str, int]]:
    out = set()
    for i, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"# expect(31[23])?: (JW\d{3}) (\S+)\s*$", line)
        if m and (not m.group(1) or sys.version_info >= (3, int(m.group(1)[1:]))):
            out.add((m.group(2), m.group(3), i))
    return out


def _watch(tmp_path, program: Path, prefix: str):
    """The program's findings whose code starts with ``prefix``, and the expected ones."""
    from conftest import run_cli

    out = tmp_path / f"{program.stem}.json"
    p = run_cli("watch", "--json", str(out), "--slow-compile", "600", str(program))
    assert out.exists(), p.stderr[-2000:]
    findings = [f for f in load_result(out).findings if f.code.startswith(prefix)]
    found = {(f.code, f.function, f.location.line if f.location else 0) for f in findings}
    assert found == _expected(program)
    return findings


def test_unhashable_static_arguments_the_program_caught_are_reported(tmp_path):
    findings = _watch(tmp_path, FIXTURES / "watch_unhashable_static.py", "JW")
    for f in findings:
        assert f.severity == "error" and "unhashable-static-arg" in finding_classes(f)
        assert f.details["type"].endswith("Config") and "make Config hashable" in f.fix.title
    if MONITORING:  # the direct call repeated 3 times is one finding; equinox's fix names its own rules
        (direct,) = [f for f in findings if f.function == "<module>" and f.details["library"] == ""]
        assert direct.details["count"] == 3 and "static_argnums" in direct.fix.title
        (eqx,) = [f for f in findings if f.details["library"] == "equinox"]
        assert "static_argnums" not in eqx.fix.title and "equinox" in eqx.fix.description


def test_the_unhashable_static_fix_follows_the_wrapper_family():
    from jitscope.jaxmodel import fixes

    assert "static_argnums" in fixes.unhashable_static("Config").title
    eqx = fixes.unhashable_static("Config", "equinox")
    assert "static_argnums" not in eqx.title and "non-array leaf" in eqx.why


def test_a_callback_per_call_is_reported_and_its_look_alikes_are_not(tmp_path):
    findings = _watch(tmp_path, FIXTURES / "watch_host_callback.py", "JW5")
    (f,) = [f for f in findings if f.code == "JW506"]
    assert f.details["runs"] == 100 and f.details["callback"] == "host_tanh"
    assert f.details["total_seconds"] > 0 and f.seconds == f.details["total_seconds"]
    assert f.fix is not None and f.fix.location.line == 9  # the host function's definition
    assert "off-fast-path-dispatch" in finding_classes(f)


def test_the_callback_hook_changes_nothing_the_program_sees():
    def host(x):
        return np.asarray(x) * 2

    @jax.jit
    def f(x):
        return jax.pure_callback(host, jax.ShapeDtypeStruct((3,), jnp.float32), x) + 1

    plain = [np.asarray(f(jnp.arange(3.0) + i)) for i in range(25)]
    with jitscope.watch(slow_compile=600):
        watched = [np.asarray(f(jnp.arange(3.0) + i)) for i in range(25)]
    for a, b in zip(plain, watched):
        np.testing.assert_array_equal(a, b)
    from jax._src import callback

    assert callback.pure_callback_impl.__module__ == "jax._src.callback"  # unhooked after the watch


def test_an_array_held_by_an_attribute_is_reported_and_a_rebound_one_is_not(tmp_path):
    (f,) = _watch(tmp_path, FIXTURES / "watch_host_attribute.py", "JW5")
    assert "data.X" in f.message


def test_a_timed_region_cut_short_by_async_dispatch_is_reported(tmp_path):
    findings = _watch(tmp_path, FIXTURES / "watch_async_timing.py", "JW5")
    by_fn = {f.function: f for f in findings}
    assert by_fn["<module>"].details["late_reads"] == 3 and by_fn["<module>"].details["arrays"] == {"y": 3}
    # function frames: before 3.13 their locals are not read; the arrays made since the region began stand in
    assert by_fn["bench"].details["late_reads"] == 2
    assert by_fn["timed_with"].details["helper"] == "Timer.__exit__ line 57"
    assert by_fn["timed_toc"].details["late_reads"] == 2 and "(in toc, line " in by_fn["timed_toc"].message
    assert all("async-timing-mistake" in finding_classes(f) and "block_until_ready" in f.fix.title
               for f in findings)


def test_the_clocks_are_given_back_and_read_first():
    import time

    saved = time.perf_counter, time.time, time.monotonic
    with jitscope.watch(slow_compile=600):
        a = time.perf_counter()
        b = time.perf_counter()
        assert time.perf_counter is not saved[0] and b >= a
    assert (time.perf_counter, time.time, time.monotonic) == saved


def test_a_clock_stored_by_name_resolves_while_watching():
    """pytest-benchmark keeps its timer as ``module.name`` and looks it up again: under ``watch -m pytest``
    that lookup failed (the wrapper said it lived in jitscope), so the user's test session did not start."""
    import importlib
    import pickle
    import time

    with jitscope.watch(slow_compile=600):
        for name in ("perf_counter", "time", "monotonic"):
            clock = getattr(time, name)
            assert getattr(importlib.import_module(clock.__module__), clock.__name__) is clock
            assert pickle.loads(pickle.dumps(clock)) is clock


def test_donated_buffers_the_executable_refuses_on_the_fast_path_are_reported(tmp_path):
    findings = _watch(tmp_path, FIXTURES / "watch_donation_fast_path.py", "JW")
    for f in findings:
        assert f.severity == "error" and "donation-misuse" in finding_classes(f)
    twice = [f for f in findings if f.details.get("donated_twice")]
    assert len(twice) == (2 if MONITORING else 1) and all("distinct arrays" in f.fix.title for f in twice)
    # refused at the call that compiled it: named after the donating function, fixed where donate_argnums is
    text = (FIXTURES / "watch_donation_fast_path.py").read_text().splitlines()
    jit_line = next(i for i, line in enumerate(text, 1) if line.endswith("# fix: donate_argnums"))
    (compiling,) = [f for f in twice if f.details.get("donated_by")]
    assert compiling.fix.location.line == jit_line and compiling.location.line == jit_line + 3
