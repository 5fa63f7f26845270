"""JS403 says "leaks tracers" only when a traced value goes into the outer container. Trace-time bookkeeping of
Python values (a name counter, a scope stack of strings, ``.pop()``) leaks nothing: it is said as info (it runs
while tracing, not on every call). Found on held-out trees, where deliberate bookkeeping got the warning; both
programs run under real jit here."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = """
import jax
import jax.numpy as jnp

count_per_tags = {}
_scope = []
history = []


@jax.jit
def summary(x):
    name = "loss"
    _scope.append(name)
    count_per_tags[name] = count_per_tags.get(name, 0) + 1
    _scope.pop()
    return x * 2


@jax.jit
def step(x):
    history.append(x)
    return x + 1
"""


def test_python_values_kept_at_trace_time_are_info_and_a_stored_tracer_is_a_warning():
    ns: dict = {}
    exec(compile(SRC, "bookkeeping.py", "exec"), ns)
    for _ in range(3):
        ns["summary"](jnp.ones(2))
    assert ns["count_per_tags"] == {"loss": 1} and ns["_scope"] == []  # once, at trace time; nothing leaked
    ns["step"](jnp.ones(2))
    with pytest.raises(jax.errors.UnexpectedTracerError):
        ns["history"][0] + 1  # the stored value is a tracer of a finished trace
    found = {(f.location.line, f.severity) for f in lint_source(SRC, "bookkeeping.py") if f.code == "JS403"}
    assert found == {(13, "info"), (14, "info"), (15, "info"), (21, "warning")}, found
