"""Exact accounting (issue 11 item 1): per form, watch's compile count for the user's function
equals the backend compiles JAX itself reports for it through ``jax.monitoring`` in the same
process (the independent truth). Traces and lowerings that compile nothing, and traces that
fail, are their own kinds: never counted, never in the reason history, never against a budget.

Forms marked ``known_miss`` are compiles watch does not see yet (JAX compiles them outside the
user's ``jit`` call: the backward program of ``grad(jit(f))``, ``pmap``, eager control flow);
they are strict xfails, so the day they are counted the marker must go.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import pytest
from jax import lax, monitoring

import jitscope
from jitscope import _jaxcompat

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
TRACE = "/jax/core/compile/jaxpr_trace_duration"
_JAX_MINOR = tuple(int(p) for p in jax.__version__.split(".")[:2])
_OLD_JAX = _JAX_MINOR < (0, 9)


def _truth_and_watch(body):  # type: ignore[no-untyped-def]
    truth: collections.Counter[str] = collections.Counter()

    def span(event, start, end, **kw):  # type: ignore[no-untyped-def]
        if event == BACKEND_COMPILE:
            truth[str(kw.get("fun_name"))] += 1
        elif event == TRACE:
            truth["trace:" + str(kw.get("fun_name"))] += 1

    monitoring.register_event_time_span_listener(span)
    try:
        with jitscope.watch(explain=False) as w:
            body()
    finally:
        _jaxcompat.unregister_listener("span", span)
    return truth, w


def _user(name: str, truth: collections.Counter[str]) -> int:
    return truth.get(f"jit({name})", 0)


# Each case: (body, the user's function name, the kinds of the uncompiled records).
def jit_two_shapes():
    def f_jit(x):
        return jnp.sin(x) * 2
    g = jax.jit(f_jit)
    g(jnp.ones(3)); g(jnp.ones(4)); g(jnp.ones(3))  # noqa: E702


def nested_then_alone():
    def f_inner(x):
        return x + 1
    inner = jax.jit(f_inner)
    outer = jax.jit(lambda x: inner(x) * 2)
    outer(jnp.ones(3))
    inner(jnp.ones(3))  # traced inside outer first; compiled only now


def aot():
    def f_aot(x):
        return x * 3
    jax.jit(f_aot).lower(jnp.ones(3)).compile()


def jvp_of_jit():
    def f_jvp(x):
        return jnp.sum(x ** 2)
    jax.jvp(jax.jit(f_jvp), (jnp.ones(3),), (jnp.ones(3),))


def lower_only():
    def f_lower(x):
        return x * 3
    jax.jit(f_lower).lower(jnp.ones(3))


def shape_only():
    def f_shape(x):
        return x * 3
    g = jax.jit(f_shape)
    jax.eval_shape(g, jnp.ones(3))
    jax.make_jaxpr(g)(jnp.ones(3))


def failed_trace():
    def f_fail(x):
        return x * 3 if x > 0 else x  # TracerBoolConversionError
    try:
        jax.jit(f_fail)(jnp.ones(()))
    except Exception:
        pass


def grad_of_jit():
    def f_grad(x):
        return jnp.sum(jnp.sin(x))
    jax.grad(jax.jit(f_grad))(jnp.ones(3))  # forward and backward programs: 2 compiles


def pmap_two_shapes():
    def f_pmap(x):
        return x * 2
    g = jax.pmap(f_pmap)
    g(jnp.ones((1, 3))); g(jnp.ones((1, 4)))  # noqa: E702


def eager_cond():
    lax.cond(True, lambda x: x + 1, lambda x: x - 1, jnp.ones(3))


CASES = {
    "jit": (jit_two_shapes, "f_jit", []),
    "nested jit, then alone": (nested_then_alone, "f_inner", []),
    "AOT lower().compile()": (aot, "f_aot", []),
    "jvp(jit)": (jvp_of_jit, "f_jvp", []),
    ".lower() only": (lower_only, "f_lower", ["lowering"]),
    "eval_shape, make_jaxpr": (shape_only, "f_shape", ["trace", "trace"]),
    "failed trace": (failed_trace, "f_fail", ["failed_trace"]),
}
KNOWN_MISS = {
    "grad(jit) backward program": (grad_of_jit, "f_grad"),
    "pmap": (pmap_two_shapes, "f_pmap"),
    "eager lax.cond": (eager_cond, "cond"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_compile_count_equals_jax_backend_compiles(case: str) -> None:
    body, name, kinds = CASES[case]
    truth, w = _truth_and_watch(body)
    counted = sum(1 for e in w.events if e.function.rsplit(".", 1)[-1] == name)
    assert counted == _user(name, truth), (dict(truth), [e.function for e in w.events])
    if case == "nested jit, then alone" and _OLD_JAX:
        # JAX 0.6-0.8 trace the inner jit on its own inside the outer trace, and the later standalone
        # compile reuses that trace: watch counts the compile right but keeps the trace as uncompiled.
        pytest.xfail("JAX < 0.9: the nested trace that a later compile reuses is kept as an uncompiled trace")
    assert [k for k, e in w.uncompiled if e.function.rsplit(".", 1)[-1] == name] == kinds
    assert all("compile" in e.phases for e in w.events)


@pytest.mark.parametrize("case", list(KNOWN_MISS))
@pytest.mark.xfail(strict=True, reason="compiled outside the user's jit call; not attributed yet")
def test_known_misses(case: str) -> None:
    body, name = KNOWN_MISS[case]
    truth, w = _truth_and_watch(body)
    assert _user(name, truth) > 0
    counted = sum(1 for e in w.events if e.function.rsplit(".", 1)[-1] == name)
    assert counted == _user(name, truth)


def test_uncompiled_records_do_not_shape_reasons_or_budgets() -> None:
    def f_budget(x):
        return x * 2
    g = jax.jit(f_budget)
    with jitscope.watch(explain=False, max_compiles=1, fail_on_recompile=True) as w:
        g.lower(jnp.ones(3))
        jax.eval_shape(g, jnp.ones(5))
        g(jnp.ones(3))
    r = w.result()
    assert [e.reason.category for e in r.events] == ["first_compile"]  # not "cache evicted"
    assert r.violations == [] and len(r.recompiles) == 0
    if _JAX_MINOR < (0, 7):
        pytest.xfail("JAX 0.6: a trace that a later compile reuses is also kept as an uncompiled trace")
    assert sorted(k for k, _ in w.uncompiled) == ["lowering", "trace"]
