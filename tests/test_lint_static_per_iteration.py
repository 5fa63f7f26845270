"""JS208: a static argument fed a value that changes on every iteration of a loop (a compile per iteration).

The flagged program is run under real jax.jit and its compiles counted (one per iteration); the look-alikes
that take few values (`t % 2`, `min(t, 3)`, a constant, a list of two settings) are not flagged.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest

import jitscope

SRC = '''\
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="t")
def step(x, t):
    return x * t


def scaled(x, k):
    return x * k


scaled_jit = jax.jit(scaled, static_argnums=1)


class Trainer:
    def __init__(self):
        self.alpha = 1.0
        self.update = jax.jit(self._update, static_argnums=1)

    def _update(self, x, alpha):
        return x * alpha

    def fit(self, x):
        for _ in range(3):
            x = self.update(x, self.alpha)
            self.alpha = self.alpha * 0.5
        return x


def train(x, n):
    for t in range(n):
        x = step(x, t=t)
    for i, batch in enumerate([x, x]):
        x = scaled_jit(batch, i + 1)
    lr = 0.1
    while lr > 0.01:
        x = scaled_jit(x, float(lr))
        lr *= 0.5
    return x


def fine(x, n):
    for t in range(n):
        x = step(x, t=t % 2)
        x = step(x, t=min(t, 3))
        x = step(x, t=2)
        x = scaled(x, t)
    for k in [1, 2]:
        x = scaled_jit(x, k)
    k = 3
    for _ in range(n):
        x = scaled_jit(x, k)
        k = 3
    return x
'''


def test_js208_flags_static_arguments_that_change_per_iteration(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"])
    got = [(f.location.line, f.severity) for f in result.findings]
    # 7: the declared static position of `step`, where the fix goes (reported once, for the first call)
    # line 38: `enumerate([x, x])`'s index takes 2 values the source writes out: 2 compiles in all (info)
    assert got == [(7, "warning"), (29, "warning"), (36, "warning"), (38, "info"), (41, "warning")], got
    assert "static argument `t` of `step` gets `t`, which changes on every iteration of the loop at line 35" \
        in result.findings[2].message
    assert "`self.update`" in result.findings[1].message


def test_a_changing_static_argument_compiles_once_per_iteration():
    traces = []

    @functools.partial(jax.jit, static_argnames="t")
    def step(x, t):
        traces.append(t)
        return x * t

    x = jnp.ones(2)
    for t in range(5):
        x = step(x, t=t)
    assert len(traces) == 5  # a trace (and compile) per iteration
    traces.clear()
    for t in range(5):
        x = step(x, t=t % 2)
    assert len(traces) == 0  # 0 and 1 were compiled above: the cache hits


SWEEP_SRC = '''\
from functools import partial

import jax

N = 100
SMALL = 4


@partial(jax.jit, static_argnames="p")
def power(x, p):
    out = x
    for _ in range(p):  # `p` is a Python loop count: it must stay static
        out = out * x
    return out


def test_powers(x):
    for i in range(3):
        for j in range(5):
            x = power(x, p=j)
            x = power(x, p=i * 5 + j)
    for j in range(SMALL + 1):
        x = power(x, p=j)
    return x


def train(x, n):
    for j in range(N):
        x = power(x, p=j)
    for j in range(n):
        x = power(x, p=j)
    for a in range(2):
        for b in range(10):
            x = power(x, p=a + b)
    p = 1
    for _ in range(3):
        x = power(x, p=p)
        p = p + 1
    return x


@partial(jax.jit, static_argnames="t")
def scale(x, t):
    return x * t


def anneal(x, n):
    for j in range(n):
        x = scale(x, t=j)
    return x
'''


def test_js208_a_counter_over_a_few_values_the_source_writes_out_is_a_bounded_sweep(tmp_path):
    """`for j in range(5): f(x, p=j)` compiles `f` once per value of j: 5 compiles, then every later run hits the
    cache (real jit below): an info saying so, not a warning; and `p`, a loop count in `f`, cannot be traced. A counter over a count the source does not fix
    (`range(n)`), over 16 values or more (`range(N)` with `N = 100`, `range(2)` x `range(10)` read together), or
    a value carried from one iteration to the next (its values depend on where it started) is still a warning."""
    path = tmp_path / "sweep.py"
    path.write_text(SWEEP_SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(20, "info"), (21, "info"), (23, "info"), (29, "warning"), (31, "warning"), (34, "warning"),
                   (37, "warning"), (42, "warning"), (49, "warning")], got  # 42: `scale`'s static_argnames, the fix
    assert "one of 5 values the loop at line 19 writes out" in result.findings[0].message
    assert "one of 15 values" in result.findings[1].message and "5 compiles" in result.findings[2].message
    # the fix follows what the parameter is used for: `p` is a loop count in `power` (a tracer there fails,
    # below), so it must stay static; `t` of `scale` is arithmetic only, so tracing it is the fix
    assert "`p` must stay static (it is a Python loop count at line 12)" in result.findings[3].message
    assert "drop it from the static arguments" not in result.findings[3].message
    assert "drop it from the static arguments" in result.findings[-1].message

    traces = []

    def body(x, p):
        traces.append(p)
        out = x
        for _ in range(p):
            out = out * x
        return out

    power = jax.jit(body, static_argnames="p")
    x = jnp.ones(2)
    for _ in range(3):  # the test run three times: the sweep's 5 values compile once, then hit the cache
        for j in range(5):
            power(x, p=j)
    assert len(traces) == 5
    with pytest.raises(jax.errors.TracerIntegerConversionError):  # and `p` cannot be traced: it is a loop count
        jax.jit(body)(x, 2)


STATS_SRC = '''\
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("mean", "scale"))
def normalize(x, mean, scale):
    return (x - mean) * scale


def train(x, batches, cfg):
    mean = 0.0
    scale = cfg.scale
    flag = True
    for batch in batches:
        x = normalize(batch, mean=mean, scale=scale)
        m = float(jnp.mean(x))
        mean = 0.9 * mean + 0.1 * m
    for _ in range(5):
        x = normalize(x, mean=m, scale=1.0)
        m = float(jnp.mean(x))
    for _ in range(5):
        x = normalize(x, mean=float(flag), scale=scale)
        flag = not flag
        scale = cfg.scale
    for _ in range(5):
        x = shifted(x, scale)
        scale = scale * 0.5
    for _ in range(5):
        x = normalize(x, mean=mean, scale=1.0)
        new_mean = 0.5 * mean
        mean = new_mean
    return x


def shift(x, s):
    return x - s


shifted = jax.vmap(shift, in_axes=(0, None))
'''


def test_js208_follows_values_the_loop_recomputes_from_its_own_state(tmp_path):
    """Running statistics: a value the loop computes from what it carried (``mean = 0.9 * mean + 0.1 * m``,
    ``m = float(jnp.mean(x))`` after ``x = normalize(x, ...)``) is new on every iteration; a toggled flag and a
    value re-read from a constant config are not (a few values, compiled once each)."""
    path = tmp_path / "stats.py"
    path.write_text(STATS_SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"])
    got = [(f.location.line, f.details.get("param") if f.details else None) for f in result.findings]
    assert [line for line, _ in got] == [7, 17, 21, 31], got  # 7: the declared static position


def test_running_statistics_as_static_arguments_compile_every_step():
    traces = []

    @functools.partial(jax.jit, static_argnames=("mean",))
    def normalize(x, mean):
        traces.append(mean)
        return x - mean

    x, mean = jnp.arange(4.0), 0.0
    for _ in range(5):
        x = normalize(x, mean=mean)
        mean = 0.9 * mean + 0.1 * float(jnp.mean(x))
    assert len(traces) == 5  # a new float each step: a trace and a compile each step
    traces.clear()
    flag = True
    for _ in range(6):
        x = normalize(x, mean=float(flag))
        flag = not flag
    assert traces == [1.0]  # a toggled flag takes two values: 1.0 compiles once (0.0 was compiled above)
    calls = []

    def shift(x, s):
        calls.append(s)
        return x - (s[0] if isinstance(s, list) else s)

    shifted = jax.vmap(shift, in_axes=(0, None))
    scale = 1.0
    for k in range(3):
        x = shifted(x, scale)  # an unmapped argument is passed through, never hashed: nothing cached on it
        scale = [0.5 ** k]  # not even hashable
    assert len(calls) == 3


LOCAL_SRC = '''\
from functools import partial

import jax


def fit(params, state, steps, update):
    @partial(jax.jit, static_argnums=(1,))
    def sample(params, state, rng):
        return params

    for rng in steps:
        out = sample(params, state, rng)
        new_state = update(state, out)
        state = new_state
    return state
'''


def test_js208_a_jit_decorated_def_of_the_function_and_state_carried_through_two_names(tmp_path):
    """``sample`` is jitted by its decorator inside ``fit``; ``state`` is carried through ``new_state``."""
    path = tmp_path / "fit.py"
    path.write_text(LOCAL_SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"])
    assert [(f.location.line, f.location.column) for f in result.findings] == [(7, 39), (12, 30)]  # 7: declared
    ns: dict = {"TRACES": []}
    exec(compile(LOCAL_SRC.replace("        return params", "        TRACES.append(state)\n        return params"),
                 "fit.py", "exec"), ns)
    traces, fit = ns["TRACES"], ns["fit"]
    fit(jnp.ones(2), 0, range(4), lambda s, out: s + 1)
    assert traces == [0, 1, 2, 3]  # a compile for every step
