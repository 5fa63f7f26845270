"""A tracer leaked into a module-level instance through its method (``tracker.record(y)`` in a jitted function).

``tracker = Tracker()`` at module level outlives every trace: the call graph now follows ``tracker.record(y)``
from traced code to ``Tracker.record`` (a name bound once, at module level, to an instance of a class of the
module), and JS404 sees ``self.history.append(x)`` store the tracer on an object that outlives the trace (a
method reached through the call graph is walked without its class around it: the class is found from the
module's index). Run under real jax.jit: the stored value is a tracer, and using it afterwards raises
UnexpectedTracerError. Quiet: a method storing a Python count, and a name bound twice (which object it is
depends on the order of the module's statements).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope

SRC = '''\
import jax
import jax.numpy as jnp


class Tracker:
    def __init__(self):
        self.history = []
        self.calls = 0

    def record(self, x):
        self.history.append(x)

    def count(self, x):
        self.calls += 1
        return x


tracker = Tracker()
other = Tracker()
other = Tracker()


@jax.jit
def f(x):
    y = jnp.sin(x)
    tracker.record(y)
    other.record(y)
    return tracker.count(y)
'''


def test_js404_through_a_module_level_instance(tmp_path):
    path = tmp_path / "track.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS404"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(11, "warning")], got
    assert "traced because `f` (track.py:26) calls it" in result.findings[0].message


def test_the_leaked_tracer_raises_when_used_after_the_trace():
    ns: dict = {}
    exec(compile(SRC, "track.py", "exec"), ns)
    ns["f"](jnp.ones(2))
    leaked = ns["tracker"].history[0]
    assert isinstance(leaked, jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jnp.sin(leaked) + 1
    assert ns["tracker"].calls == 1  # the count ran once, while tracing: a Python int, nothing leaked
    ns["f"](jnp.ones(2))
    assert ns["tracker"].calls == 1 and len(ns["tracker"].history) == 1  # cached: the method never runs again
