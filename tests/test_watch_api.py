"""The Python API: jitscope.watch (context manager, decorator) and jitscope.no_recompile, in-process."""

from __future__ import annotations

import json
import logging
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.collect import monitoring
from jitscope.results.watch import WatchResult
from jitscope.schema import validate


def _line_of(fn, needle: str) -> int:
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, ln in enumerate(lines) if needle in ln)


def test_watch_context_manager_records_user_compiles_only(tmp_path):
    @jax.jit
    def f(x):
        return jnp.sin(x) * 2

    ev = tmp_path / "e.jsonl"
    with jitscope.watch(events=ev) as w:
        f(jnp.ones(3))
        f(jnp.ones(3))  # warm: no compile
        f(jnp.ones(5))
        jnp.ones(7) + 1  # JAX-internal eager compiles
    assert [e.reason.category for e in w.events] == ["first_compile", "shape_change"]
    assert w.events[1].reason.detail == "x: f32[3] -> f32[5]"
    assert w.events[0].call_site.file == __file__
    # like JAX's own "defined at", the code object's first line: the decorator line
    assert w.events[0].definition.line == _line_of(test_watch_context_manager_records_user_compiles_only,
                                                     "@jax.jit")
    r = w.result()
    assert isinstance(r, WatchResult) and r.internal_compiles >= 1 and r.wall_seconds > 0
    assert r.functions[0].compiles == 2 and r.functions[0].share_of_wall is not None
    validate(r.to_dict())
    again = WatchResult.from_dict(json.loads(r.to_json()))
    assert again.to_dict() == r.to_dict()
    from conftest import compile_lines

    assert len(compile_lines(ev)) == 2
    assert "shape_change" in w.summary and "f32[3] -> f32[5]" in w.summary
    assert not monitoring.active_subscribers()  # hooks removed


def test_watch_decorator_accumulates_and_explain_text_is_captured_not_printed(capsys, caplog):
    g = jax.jit(lambda x, n: x * n, static_argnums=1)

    @jitscope.watch()
    def run(n):
        return g(jnp.ones(2), n)

    with caplog.at_level(logging.WARNING):
        run(2)
        run(3)
    session = run.jitscope_watch
    assert [e.reason.category for e in session.events] == ["first_compile", "static_value_change"]
    assert session.events[1].reason.detail == "n: 2 -> 3"
    assert "TRACING CACHE MISS" in session.events[1].reason.explanation
    assert "TRACING CACHE MISS" not in capsys.readouterr().err
    assert not jax.config.jax_explain_cache_misses  # restored


def test_new_function_object_and_fix_saving():
    x = jnp.ones(4)
    with jitscope.watch() as w:
        for _ in range(4):
            jax.jit(lambda v: v - 1)(x)
    cats = [e.reason.category for e in w.events]
    assert cats == ["first_compile"] + ["new_function_object"] * 3
    fix = w.result().fixes[0]
    assert fix.saving_compiles == 3
    assert fix.saving_seconds == pytest.approx(sum(e.total_seconds for e in w.events[1:]))


def test_no_recompile_raises_at_first_compile_naming_function_reason_and_site():
    @jax.jit
    def step(x):
        return x + 1

    step(jnp.ones(2))  # warm-up outside the block
    with pytest.raises(jitscope.RecompileError) as info:
        with jitscope.no_recompile():
            jnp.ones(3) * 2  # JAX-internal eager compiles do not trip the guard
            step(jnp.ones(2))  # warm: fine
            step(jnp.ones(8))
    msg = str(info.value)
    assert "step" in msg and __file__ in msg
    assert info.value.event.function.endswith("step")
    assert info.value.event.call_site.line == _line_of(
        test_no_recompile_raises_at_first_compile_naming_function_reason_and_site, "step(jnp.ones(8))")
    assert not monitoring.active_subscribers()


def test_no_recompile_inside_watch_knows_earlier_compiles_and_allow_first():
    @jax.jit
    def h(x):
        return x * 3

    with jitscope.watch():
        h(jnp.ones(2))
        with pytest.raises(jitscope.RecompileError, match=r"shape_change: x: f32\[2\] -> f32\[4\]"):
            with jitscope.no_recompile(allow_first=True):
                h(jnp.ones(4))

    @jax.jit
    def k(x):
        return x - 3

    with jitscope.no_recompile(allow_first=True) as guard:
        k(jnp.ones(2))  # first compile: allowed
        k(jnp.ones(2))
    assert guard.violations == []
    with pytest.raises(jitscope.RecompileError, match="allow_first=True"):
        with jitscope.no_recompile():
            jax.jit(lambda v: v)(jnp.ones(1))


def test_no_recompile_warn_mode_and_decorator():
    f = jax.jit(partial(lambda a, b: a + b, 1.0))  # partials of user functions are the user's

    @jitscope.no_recompile(on_compile="warn")
    def body():
        f(jnp.ones(2))
        return f(jnp.ones(6))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body()
    got = [w for w in caught if issubclass(w.category, jitscope.RecompileWarning)]
    assert len(got) == 2 and "shape_change" in str(got[1].message)
    with pytest.raises(jitscope.UsageError):
        jitscope.no_recompile(on_compile="explode")  # type: ignore[arg-type]


def test_budget_violations_in_result():
    @jax.jit
    def f(x):
        return x

    with jitscope.watch(max_compiles=1, fail_on_recompile=True) as w:
        f(jnp.ones(1))
        f(jnp.ones(2))
    v = w.result().violations
    assert v[0] == "2 compiles, budget is 1"
    assert "recompile #1 of" in v[1] and "shape_change" in v[1]


def test_identity_follows_what_jit_caches_on_partials_methods_closures():
    def add(a, x):
        return a + x

    class Model:
        def apply(self, x):
            return x * 2

    def make():
        @jax.jit
        def inner(x):
            return x - 1

        return inner

    m = Model()
    with jitscope.watch() as w:
        for _ in range(2):
            jax.jit(partial(add, 1.0))(jnp.ones(2))  # a new partial each time: new object
        jax.jit(m.apply)(jnp.ones(2))
        jax.jit(m.apply)(jnp.ones(3))  # bound methods are recreated, but equal: same function
        for _ in range(2):
            make()(jnp.ones(2))  # a closure redefined per call
    got = [(e.function.rsplit(".", 1)[-1], e.reason.category) for e in w.events]
    assert got == [("add", "first_compile"), ("add", "new_function_object"),
                   ("apply", "first_compile"), ("apply", "shape_change"),
                   ("inner", "first_compile"), ("inner", "new_function_object")]


def test_aot_threads_and_transformed_calls():
    import threading

    @jax.jit
    def f(x):
        return jnp.sin(x).sum()

    with jitscope.watch() as w:
        f.lower(jnp.ones(2)).compile()(jnp.ones(2))  # AOT: trace, lower, compile joined in one event
        t = threading.Thread(target=lambda: f(jnp.ones(7)))
        t.start()
        t.join()
        jax.grad(f)(jnp.ones(2))  # grad of the jitted function compiles its transformed program
    got = [(e.reason.category, sorted(e.phases)) for e in w.events]
    assert got[0] == ("first_compile", ["compile", "lower", "trace"])
    assert got[1] == ("shape_change", ["compile", "lower", "trace"])
    # grad of the jitted function is a different program: its first compile is not a recompile
    assert got[2][0] == "first_compile" and w.events[2].transform == "grad"
    assert "under a transformation (grad)" in w.events[2].reason.detail
    assert w.events[2].signature.leaves[0].short() == "f32[2]"


def test_watch_keeps_no_tracer_alive_under_checking_leaks():
    # Found on chex's test suite (asserts_chexify_test, benchmarks/RESULTS.md): a jitted function called
    # inside a trace watch does not hook (checkify's) with its trace cached was kept as the thread's last
    # call, tracers and all, and jax.checking_leaks() failed the user's program with "Leaked trace".
    from jax.experimental import checkify

    @jax.jit
    def positive_log(x):
        checkify.check(jnp.all(x > 0), "negative input")
        return jnp.log(x)

    checked = checkify.checkify(positive_log)
    with jitscope.watch() as w, jax.checking_leaks():
        for _ in range(3):
            err, _out = checked(jnp.ones(3))
            err.throw()
    assert w.result().events  # it was watched
