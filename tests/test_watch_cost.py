"""Watch's cost stays flat as a run grows (issue #23 item 6); the timings are in benchmarks/watch_overhead.py,
these tests check the mechanisms on real JAX:

* JAX's ``jax_explain_cache_misses`` (which compares each miss with every earlier version of the function)
  runs only for the first ``EXPLAIN_FIRST`` traces of each function, for that call only, and the user's
  own global setting is left alone; jitscope's reasons are the same whether JAX explained or not.
* a recompile is compared with a bounded number of earlier compiles (the recent ones, and every identical
  signature however old), and a duplicate program is found by a lookup: the work per compile does not
  grow with the run, and the answers are those of a full comparison.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jitscope._watch import WatchSession
from jitscope.analyze import reasons
from jitscope.collect import monitoring
from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location

SHAPES = 9


def _retrace(session_kwargs: dict) -> tuple[list[CompileEvent], list[bool]]:
    from jax._src import config  # the thread-local value JAX's explain paths read

    seen: list[bool] = []

    def f(x):
        seen.append(config.explain_cache_misses.value)
        return x * 2 + 1

    g = jax.jit(f)
    s = WatchSession(findings=False, **session_kwargs).start()
    try:
        for n in range(1, SHAPES + 1):
            g(np.ones(n, np.float32))
        g(np.ones((2, 2), np.float32))
    finally:
        s.stop()
    return s.events, seen


def test_jax_explains_only_the_first_few_misses_of_each_function():
    assert not jax.config.jax_explain_cache_misses
    events, seen = _retrace({})
    k = monitoring.EXPLAIN_FIRST
    assert len(events) == SHAPES + 1
    assert seen == [True] * k + [False] * (SHAPES + 1 - k)  # JAX's explain mode on for those traces only
    assert all(e.reason.explanation for e in events[:k])  # JAX's text kept where it ran
    assert not any(e.reason.explanation for e in events[k:])
    assert not jax.config.jax_explain_cache_misses  # the global setting never touched


def test_reasons_are_the_same_with_and_without_jax_explaining():
    quiet, _ = _retrace({})
    jax.config.update("jax_explain_cache_misses", True)  # the user's own setting: left on, for every trace
    try:
        loud, seen = _retrace({})
    finally:
        jax.config.update("jax_explain_cache_misses", False)
    assert all(seen)
    assert all(e.reason.explanation for e in loud)
    assert [(e.reason.category, e.reason.detail) for e in quiet] == [(e.reason.category, e.reason.detail)
                                                                      for e in loud]
    assert [e.reason.category for e in quiet] == ["first_compile"] + ["shape_change"] * SHAPES


def _event(i: int, shape: tuple[int, ...]) -> CompileEvent:
    return CompileEvent(function="f", definition=Location("m.py", 3), function_id=1, index=i,
                        signature=ArgSignature((LeafSpec("x", shape, "float32"),), {}, "x: PyTreeDef(*)", ()))


def test_a_recompile_is_compared_with_a_bounded_number_of_earlier_compiles(monkeypatch):
    calls = [0]
    full = reasons.signature_diffs

    def counted(a, b):
        calls[0] += 1
        return full(a, b)

    monkeypatch.setattr(reasons, "signature_diffs", counted)
    history = reasons.ReasonHistory()
    per_compile = []
    for i in range(2000):
        calls[0] = 0
        history.classify(_event(i, (i + 1,)))
        per_compile.append(calls[0])
    assert max(per_compile[100:]) <= 2 * reasons.RECENT  # flat: was i comparisons for the i-th compile
    assert per_compile[1999] == per_compile[200]


def test_an_identical_signature_is_found_however_old_it_is():
    history = reasons.ReasonHistory()
    events = [_event(i, (i + 1,)) for i in range(500)] + [_event(500, (7,))]  # shape 7 again, 494 compiles later
    got = [history.classify(e) for e in events]
    assert got[-1].category == "other" and "same signature as an earlier compile" in got[-1].detail
    # the same answer as comparing with the whole history
    assert reasons.classify(events[-1], events[:-1]) == got[-1]
    assert [r.category for r in got[1:-1]] == ["shape_change"] * 499


@pytest.mark.parametrize("repeat_at", [3, 300])
def test_a_duplicate_program_is_found_by_lookup_at_any_distance(repeat_at):
    from jitscope.analyze.duplicates import DuplicateTracker

    tracker = DuplicateTracker()
    found = []
    for i in range(400):
        e = _event(i, (i + 1,))
        e.fingerprint = f"p{i}" if i != repeat_at + 50 else f"p{repeat_at}"
        e.constants_blind_fingerprint = e.fingerprint
        finding = tracker.observe(e, None)
        if finding is not None:
            found.append((i, finding.code, finding.details["earlier_index"]))
    assert found == [(repeat_at + 50, "JW403", repeat_at)]


def test_a_recompile_jitscope_cannot_name_still_gets_jaxs_explanation():
    """Past the first few traces, a call whose arguments an earlier compile had (a cleared cache, a context
    change: jitscope's reason cannot name the cause) is still explained by JAX, a bounded number of times."""
    g = jax.jit(lambda x: x * 3)
    s = WatchSession(findings=False).start()
    try:
        for n in range(1, 7):
            g(np.ones(n, np.float32))
        for _ in range(monitoring.EXPLAIN_UNNAMED + 2):
            g.clear_cache()
            g(np.ones(2, np.float32))
    finally:
        s.stop()
    later = s.events[6:]
    assert [e.reason.category for e in later] == ["other"] * len(later)
    explained = [bool(e.reason.explanation) for e in later]
    assert explained == [True] * monitoring.EXPLAIN_UNNAMED + [False] * 2


def test_the_jnp_routines_a_trace_calls_are_not_explained_on_every_miss():
    """``x * 2 + 1`` under jit calls jnp's own jitted routines (multiply, add): jit calls too, never the
    program's traces. Each of their tracing-cache misses used to run JAX's explain, which compares with
    every earlier version (the retrace-heavy benchmark's per-compile cost grew to 4x by compile 2,000).
    JAX's explain function runs at most EXPLAIN_FIRST times per function object."""
    import sys

    from jax._src.interpreters import partial_eval

    if not callable(getattr(partial_eval, "explain", None)):
        pytest.skip("this JAX has no partial_eval.explain")
    calls = []
    code = partial_eval.explain.__code__

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code is code:
            calls.append(1)

    old = sys.getprofile()
    sys.setprofile(profiler)
    try:
        events, _ = _retrace({})
    finally:
        sys.setprofile(old)
    assert len(events) == SHAPES + 1
    # f, and the few jnp routines its trace calls: EXPLAIN_FIRST each at most, whatever SHAPES is
    assert 0 < len(calls) <= 4 * monitoring.EXPLAIN_FIRST, len(calls)
