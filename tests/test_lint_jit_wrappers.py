"""Jit-wrapper summaries (lint/wrappers.py): a project function that hands a parameter to a jit.

A parameter passed on at a static position of a jit (``fun = jax.jit(fun, static_argnums=(0, 1, 3));
fun(cond_fun, body_fun, x, maxiter)``), or jitted itself (``maybe_jit(f)``), is part of the jit's cache
key: a caller passing a fresh closure, or a per-iteration value, recompiles on every call. Checked here
under real jax.jit (traces counted), in the same module and through another module of the package
(``from . import loop``; a package ``__init__`` re-export), and the look-alikes that must stay quiet.
"""

from __future__ import annotations

import importlib

import jax.numpy as jnp
import pytest

import jitscope

LOOP = '''\
import jax

TRACES = []


def _lax(cond, body, x, n):
    TRACES.append(n)
    for _ in range(n):
        x = jax.lax.cond(cond(x), body, lambda v: v, x)
    return x


def while_loop(cond_fun, body_fun, init_val, maxiter, jit=True):
    fun = _lax
    if jit:
        fun = jax.jit(fun, static_argnums=(0, 1, 3))
    return fun(cond_fun, body_fun, init_val, maxiter)


def maybe_jit(f, use=True):
    return jax.jit(f) if use else f


def apply_twice(f, x):
    return maybe_jit(f)(maybe_jit(f)(x))


def rebinds(cond_fun, x):
    cond_fun = _positive
    return while_loop(cond_fun, _minus, x, 3)


def _positive(v):
    return v > 0


def _minus(v):
    return v - 1
'''

INIT = '''\
from .loop import while_loop as bounded_loop
'''

SOLVER = '''\
import jax.numpy as jnp

from . import loop
from . import bounded_loop
from .loop import apply_twice, rebinds


def _positive(v):
    return v > 0


def _minus(v):
    return v - 1


POSITIVE_ONCE = lambda v: v > 0  # noqa: E731  (made once, at import)


def solve(x, tol):
    def cond_fun(v):
        return v > tol
    return loop.while_loop(cond_fun, _minus, jnp.asarray(x), 3)                  # 22: fresh local def


def solve_lambda(x, tol):
    return bounded_loop(lambda v: v > tol, _minus, jnp.asarray(x), 3)            # 26: via the re-export


def shift(x, k):
    return apply_twice(lambda v: v + k, x)                                       # 30: jitted parameter


def steps(x, m=4):
    for n in range(1, m):
        x = loop.while_loop(_positive, _minus, x, n)                              # 35: per-iteration static
    return x


def quiet(x, n):
    x = loop.while_loop(_positive, _minus, x, 3)           # module-level functions
    x = loop.while_loop(POSITIVE_ONCE, _minus, x, n)       # a closure made once
    for _ in range(3):
        x = loop.while_loop(_positive, _minus, x, n)       # loop-invariant static argument
    x = rebinds(lambda v: v > 0, x)                        # the parameter is rebound before the jit
    return loop.while_loop(_positive, _minus, x, 3, jit=False)
'''


@pytest.fixture
def pkg(tmp_path):
    from conftest import importable_package

    with importable_package(tmp_path, "wrapped", {"__init__.py": INIT, "loop.py": LOOP, "solver.py": SOLVER}) as root:
        yield root


def test_calls_through_another_modules_jit_wrapper_are_jitted_calls(pkg):
    result = jitscope.lint([str(pkg)], config=False, jobs=1, select=["JS605", "JS208"])
    got = sorted((f.code, f.location.file.rsplit("/", 1)[-1], f.location.line) for f in result.findings)
    assert got == [("JS208", "solver.py", 35), ("JS605", "solver.py", 22), ("JS605", "solver.py", 26),
                   ("JS605", "solver.py", 30)], got
    by_line = {f.location.line: f.message for f in result.findings}
    assert "`cond_fun` is static: `jax.jit(..., static_argnums=(0, 1, 3))` (loop.py:16)" in by_line[22]
    assert "`f` is jitted: `maybe_jit` passes it on: `jax.jit` (loop.py:21) jits it" in by_line[30]
    # In a loop (a driver) the recompile is a warning; in a function's straight-line code it is paid only
    # when the function runs outside jit (a library's callers may jit it): an info saying so.
    assert {f.location.line: f.severity for f in result.findings} == {22: "info", 26: "info", 30: "info",
                                                                      35: "warning"}
    assert "(when `solve` runs outside jit; under a jit it is traced once per trace instead)" in by_line[22]


def test_the_same_wrapper_in_one_module(tmp_path):
    src = LOOP + '''

def solve(x, tol):
    return while_loop(lambda v: v > tol, _minus, x, 3)


def quiet(x):
    return while_loop(_positive, _minus, x, 3)
'''
    path = tmp_path / "m.py"
    path.write_text(src)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS605", "JS208"])
    lambda_line = src.splitlines().index("    return while_loop(lambda v: v > tol, _minus, x, 3)") + 1
    assert [(f.code, f.location.line) for f in result.findings] == [("JS605", lambda_line)]


def test_real_jax_retraces_for_each_fresh_closure_and_each_static_value(pkg):
    loop = importlib.import_module("wrapped.loop")
    solver = importlib.import_module("wrapped.solver")
    x = jnp.float32(5.0)
    solver.solve(x, 0.0)
    solver.solve(x, 0.0)
    solver.solve_lambda(x, 0.0)
    assert len(loop.TRACES) == 3  # a new closure per call: a trace (and compile) per call
    loop.TRACES.clear()
    solver.steps(x)
    solver.steps(x)
    assert loop.TRACES == [1, 2, 3]  # one per static value, cached on the second run
    loop.TRACES.clear()
    for _ in range(3):
        solver.quiet(x, 3)
    # module-level functions and the lambda made once: one trace each, in the first call only (the
    # loop-invariant and rebinds() calls hit the cache); jit=False runs `_lax` in Python on every call
    assert len(loop.TRACES) == 2 + 3


def test_real_jax_recompiles_a_jitted_fresh_lambda():
    import jax

    traces = []

    def maybe_jit(f, use=True):
        return jax.jit(f) if use else f

    def shift(x, k):
        def f(v):
            traces.append(1)
            return v + k
        return maybe_jit(f)(x)

    shift(jnp.ones(2), 1.0)
    shift(jnp.ones(2), 1.0)
    assert len(traces) == 2


LOCAL = '''\
from functools import partial

import jax


def step(x, t):
    return x * t


def train(x, scale):
    step_fn = jax.jit(step, static_argnames="t")
    for t in range(4):
        x = step_fn(x, t=t)                               # 13: per-iteration value
    by_position = partial(jax.jit, static_argnums=(1,))(step)
    for t in range(4):
        x = by_position(x, t)                              # 16: per-iteration value
    for _ in range(4):
        x = step_fn(x, t=scale)                           # loop-invariant: one compile
    maybe = jax.jit(step, static_argnums=(1,)) if scale else step
    for t in range(4):
        x = maybe(x, t)                                    # not a jit on every path: unknown, quiet
    return x
'''


def test_a_jit_bound_in_the_calling_function_is_a_jitted_call(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(LOCAL)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208", "JS605", "JS602"])
    assert [(f.code, f.location.line) for f in result.findings] == [("JS208", 13), ("JS208", 16)]
    assert "static argument `t` of `step_fn`" in result.findings[0].message


def test_real_jax_compiles_a_locally_bound_jit_per_static_value():
    import jax

    traces = []

    def step(x, t):
        traces.append(t)
        return x * t

    def train(x, scale):
        step_fn = jax.jit(step, static_argnames="t")
        for t in range(4):
            x = step_fn(x, t=t)
        for _ in range(4):
            x = step_fn(x, t=scale)
        return x

    train(jnp.ones(2), 7)
    assert traces == [0, 1, 2, 3, 7]  # one trace per new value; the loop-invariant one hits the cache


UNHASHABLE = '''\
import jax


def _draw(shape, key):
    return jax.random.normal(key, shape)


def draw(shape, key):
    fn = jax.jit(_draw, static_argnums=(0,))
    return fn(shape, key)


def draw_maybe(shape, key, jit=True):
    fn = _draw
    if jit:
        fn = jax.jit(_draw, static_argnums=(0,))
    return fn(shape, key)


def use(key):
    shape = [2, 3]
    a = draw(shape, key)                                   # 22: a list, on every call: error
    b = draw_maybe([2, 3], key)                            # 23: only when jit=True: warning
    k = jax.random.PRNGKey(0)
    c = draw(k, key)                                       # 25: a PRNG key (an array): error
    return a, b, c, draw((2, 3), key)                      # a tuple: quiet
'''


def test_unhashable_values_through_a_wrapper(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(UNHASHABLE)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS602"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(22, "error"), (23, "warning"), (25, "error")], got
    assert "`shape` is static: `jax.jit(..., static_argnums=0)` (m.py:9) gets it" in result.findings[0].message
    assert all(f.fix is None for f in result.findings)  # the wrapper may use the value otherwise: no fix


def test_real_jax_rejects_unhashable_static_values_through_the_wrapper(tmp_path):
    ns: dict = {}
    exec(compile(UNHASHABLE, str(tmp_path / "m.py"), "exec"), ns)
    import jax

    key = jax.random.PRNGKey(1)
    with pytest.raises((TypeError, ValueError), match="[Hh]ashable|unhashable"):
        ns["draw"]([2, 3], key)
    with pytest.raises((TypeError, ValueError), match="[Hh]ashable|unhashable"):
        ns["draw"](jax.random.PRNGKey(0), key)
    ns["draw_maybe"]([2, 3], key, jit=False)  # the other path works
    assert ns["draw"]((2, 3), key).shape == (2, 3)


LOOK_ALIKES = '''\
import jax


def flops(fn, *args):
    return jax.jit(fn).lower(*args).cost_analysis()         # lowered to inspect, never called


def maybe_jit(fn, use=True):
    return jax.jit(fn) if use else fn


def per_layer(x, layers):
    out = []
    for layer in layers:
        def apply(v):
            return layer(v)
        out.append(flops(apply, x))                          # quiet: lowering traces by design
    return out


def test_helper():
    return maybe_jit(lambda v: v + 1)(1.0)                  # quiet: a test runs once


def helper_in_loop(xs):
    return [maybe_jit(lambda v: v + 1)(x) for x in xs]     # 26: a new lambda per element
'''


def test_look_alikes_lowering_and_tests_stay_quiet(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(LOOK_ALIKES)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS605"])
    assert [(f.code, f.location.line) for f in result.findings] == [("JS605", 26)]


STEPS = '''\
from functools import partial

import jax

TRACES = []


@partial(jax.jit, static_argnames=("step",))
def train_step(x, step):
    TRACES.append(step)
    return x * step


def _update(x, cfg):
    return x


update = jax.jit(_update, static_argnums=(1,))
'''

TRAIN = '''\
from .steps import train_step, update


def train(x, n):
    for step in range(n):
        x = train_step(x, step)                 # 6: per-iteration static, another module's jit
    for _ in range(n):
        x = train_step(x, step=n)               # loop-invariant: quiet
    return x


def configure(x):
    return update(x, [1, 2])                    # 13: a list for a static argument: raises
'''


def test_another_modules_jitted_function_has_its_static_parameters(tmp_path):
    root = tmp_path / "app"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "steps.py").write_text(STEPS)
    (root / "train.py").write_text(TRAIN)  # mentions no jax: read after the run
    result = jitscope.lint([str(root)], config=False, jobs=1, select=["JS208", "JS602", "JS605"])
    got = [(f.code, f.location.line, f.severity) for f in result.findings]
    assert got == [("JS208", 6, "warning"), ("JS602", 13, "error")], got
    assert "`step` is static: `train_step` is jitted with static_argnames='step' (`train_step`, steps.py:9)" \
        in result.findings[0].message
    from conftest import importable_package

    with importable_package(tmp_path, "app", {}):  # written above; importable here, forgotten after
        train = importlib.import_module("app.train")
        steps = importlib.import_module("app.steps")
        train.train(jnp.float32(1.0), 3)
        assert steps.TRACES == [0, 1, 2, 3]  # a trace per value; the loop-invariant calls hit the cache
        with pytest.raises((TypeError, ValueError), match="[Hh]ashable|unhashable"):
            train.configure(jnp.float32(1.0))


def test_real_jax_under_an_outer_jit_the_fresh_closure_costs_one_trace(pkg):
    """Why a straight-line call in a function is only an info: jitted by its caller, it traces once."""
    import jax

    loop = importlib.import_module("wrapped.loop")
    solver = importlib.import_module("wrapped.solver")
    outer = jax.jit(lambda x: solver.solve(x, 0.0))
    for _ in range(3):
        outer(jnp.float32(5.0))
    assert len(loop.TRACES) == 1


def test_a_wrapper_that_may_return_first_is_no_certain_jit(tmp_path):
    src = UNHASHABLE.replace('''def draw(shape, key):
    fn = jax.jit(_draw, static_argnums=(0,))''', '''def draw(shape, key):
    if key is None:
        return None
    fn = jax.jit(_draw, static_argnums=(0,))''')
    path = tmp_path / "m.py"
    path.write_text(src)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS602"])
    assert [f.severity for f in result.findings] == ["warning", "warning", "warning"]  # draw([1], None) works
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    assert ns["draw"]([2, 3], None) is None


FACTORY = '''\
import jax

DISABLE = False
TRACES = []


def maybe_jit(fn, *args, **kwargs):
    if DISABLE:
        return fn
    return jax.jit(fn, *args, **kwargs)


def step(x, n):
    TRACES.append(n)
    return x * n


fast_step = maybe_jit(step, static_argnums=1)


def train(x, k, n=3):
    local_step = maybe_jit(step, static_argnames="n")
    for i in range(n):  # a count the caller sets (`range(3)`: 3 compiles in all, an info)
        x = fast_step(x, i)                                 # 24: per-iteration static through the wrapper
        x = local_step(x, n=i)                              # 25: the same, bound in the function
        x = maybe_jit(step, static_argnums=1)(x, k)         # loop-invariant: quiet
    return x


def configure(x):
    return maybe_jit(step, static_argnums=(1,))(x, [1, 2])  # 31: a list, when the wrapper jits (warning)
'''


def test_calls_of_what_a_jit_wrapper_returns_are_jitted_calls(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(FACTORY)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208", "JS602", "JS605"])
    got = [(f.code, f.location.line, f.severity) for f in result.findings]
    assert got == [("JS208", 24, "warning"), ("JS208", 25, "warning"), ("JS602", 31, "warning")], got
    assert "`maybe_jit` returns `jax.jit` of `step` (m.py:10) on some calls" in result.findings[0].message
    assert result.findings[2].fix is None
    ns: dict = {}
    exec(compile(FACTORY, str(path), "exec"), ns)
    ns["train"](jnp.float32(1.0), 7)
    assert sorted(ns["TRACES"]) == [0, 0, 1, 1, 2, 2, 7]  # one trace per value and per jit object
    with pytest.raises((TypeError, ValueError), match="[Hh]ashable|unhashable"):
        ns["configure"](jnp.float32(1.0))
    ns["DISABLE"] = True  # the wrapper's other path: no jit, so no hashing of the list (hence a warning)
    assert ns["maybe_jit"](ns["step"], static_argnums=(1,)) is ns["step"]
