"""Static values forwarded through ``partial`` and ``**kwargs`` of a jitted function (lint/rules/_static_args.py).

``jax.jit(partial(step_with_loss, loss), static_argnames=("alpha",))`` reads ``static_argnames`` against the
partial's signature ``(q, *args, **kwargs)``: ``alpha`` passed by keyword lands in ``**kwargs`` and is static
(a new value each iteration compiles again), while ``alpha`` passed by position lands in ``*args`` and is
traced (one compile). The lint follows the same model, for a partial written in the jit's argument and for a
local name bound to the partial first (``step = partial(f, loss); step = partial(jax.jit, ...)(step)``).
"""

from __future__ import annotations

import jax.numpy as jnp

import jitscope

PROGRAM = '''\
from functools import partial

import jax

TRACES = []


def loss(q, alpha, gamma):
    TRACES.append(alpha)
    return q * alpha * gamma


def step_with_loss(loss, q, *args, **kwargs):
    return loss(q, *args, **kwargs)


def by_keyword(q, n):
    step = jax.jit(partial(step_with_loss, loss), static_argnames=("gamma", "alpha"))
    alpha = 0.5
    for _ in range(n):
        alpha = alpha * 0.5
        q = step(q, alpha=alpha, gamma=0.99)          # 22: static, new each iteration
    return q


def by_position(q, n):
    step = partial(step_with_loss, loss)
    step = partial(jax.jit, static_argnames=("gamma", "alpha"))(step)
    alpha = 0.5
    for _ in range(n):
        alpha = alpha * 0.5
        q = step(q, alpha, 0.99)                      # 32: lands in *args: traced
        q = step(q, alpha=alpha, gamma=0.99)          # 33: static, new each iteration
    return q
'''


def test_static_by_keyword_through_partial_and_kwargs(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"])
    assert sorted(f.location.line for f in result.findings) == [22, 33]
    namespace: dict = {}
    exec(compile(PROGRAM, str(path), "exec"), namespace)
    traces = namespace["TRACES"]
    namespace["by_keyword"](jnp.ones(2), 3)
    assert len(traces) == 3  # one compile per static value
    traces.clear()
    step = namespace["jax"].jit(namespace["partial"](namespace["step_with_loss"], namespace["loss"]),
                                static_argnames=("gamma", "alpha"))
    for i in range(3):
        step(jnp.ones(2), 0.1 * (i + 1), 0.99)
    assert len(traces) == 1  # by position, through *args: traced, one compile
