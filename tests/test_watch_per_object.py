"""JW403 for a jit per object: a bound method or a closure over ``self`` jitted in ``__init__`` compiles the same
program again for every new object.

A held-out scorer's possible miss (issue #24, suites5 re-score): an RL library whose environments jit their methods
per object recompiled the identical program for every new environment (4 compiles, ~11 s) with no finding. Two
function objects of one definition that bind different objects of one class, and nothing else different, were taken
for two functions (``_rebound``); and the library both defined and called them (``library_internal``), so nothing was
paired. Now: "a new Env object per call", with the fix in the user's terms (jit once outside the object; where the
library jits per object, reuse the object), where the two objects hold equal values (collect/object_state.py: two
bijectors built with another shift each are two functions). Closures over two different classes stay unpaired.
"""

from __future__ import annotations

import json

from conftest import run_cli

PROGRAM = '''
import jax
import jax.numpy as jnp


class Env:
    def __init__(self):
        self.step = jax.jit(self.step_impl)               # a bound method jitted per object
        self.reset = jax.jit(lambda x: self.reset_impl(x))  # a closure over self jitted per object

    def step_impl(self, x):
        return jnp.tanh(x * 2.0 + 1.0)

    def reset_impl(self, x):
        return jnp.cos(x) * 3.0


class P:
    scale = 3.0


class Q(P):
    pass


class Named:
    def __init__(self, name):
        self.name = name
        self.run = jax.jit(self.run_impl)

    def run_impl(self, x):
        return jnp.exp(x) - 1.0


def applied(cls):
    return jax.jit(lambda x: x * cls.scale)(jnp.ones(3))  # another class per case: two functions, not paired


for _ in range(3):
    env = Env()
    env.step(jnp.ones(3))
    env.reset(jnp.ones(3))
for name in ("a", "b"):
    Named(name).run(jnp.ones(3))                          # objects holding other values: two functions, not paired
for cls in (P, Q):
    applied(cls)
'''

LIBRARY = '''
import jax
import jax.numpy as jnp


class Env:
    def __init__(self, n):
        self.n = n
        self._step = jax.jit(self._step_impl)

    def _step_impl(self, x):
        return jnp.sin(x) * 2.0

    def step(self, x):
        return self._step(x)
'''

SUITE = '''
import jax
import jax.numpy as jnp

import envlib


def test_rollouts():
    for _ in range(3):
        envlib.Env(3).step(jnp.ones(3))                   # a new environment per rollout: the same program


class Scaler:
    def __init__(self, k):
        self.k = k
        self.f = jax.jit(lambda x: x * 2.0 + 0 * self.k)


def test_own_objects():
    for k in (1, 2):
        Scaler(k).f(jnp.ones(3))                          # the test's own objects per case: its subject
'''


def _findings(data: dict) -> list[dict]:
    return [f for f in data["findings"] if f["code"] == "JW403"]


def test_a_jit_per_object_is_reported_with_the_fix_in_the_users_terms(tmp_path):
    from jitscope.jaxmodel import fixes

    (tmp_path / "prog.py").write_text(PROGRAM)
    out = tmp_path / "run.json"
    r = run_cli("watch", "-q", "--json", str(out), "prog.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert [e["function"].rsplit(".", 1)[-1] for e in data["events"]] == \
        ["step_impl", "<lambda>"] * 3 + ["run_impl"] * 2 + ["<lambda>"] * 2   # every object compiled: counts unchanged
    found = {f["compile_index"]: f for f in _findings(data)}
    assert sorted(found) == [2, 3, 4, 5]      # Named("a")/Named("b") (6, 7) and the P/Q closures (8, 9): two functions
    for i in (2, 4):
        assert found[i]["details"]["key_difference"].startswith("a new Env object per call (the jitted function "
                                                                "is a bound method of it")
    assert "a closure over it" in found[3]["details"]["key_difference"]
    assert {f["fix"]["title"] for f in found.values()} == {fixes.JIT_PER_OBJECT.title}


def test_a_library_that_jits_per_object_gets_reuse_the_object(tmp_path):
    from jitscope.jaxmodel import fixes

    site = tmp_path / "lib" / "site-packages"
    (site / "envlib").mkdir(parents=True)
    (site / "envlib" / "__init__.py").write_text(LIBRARY)
    (tmp_path / "test_envs.py").write_text(SUITE)
    out = tmp_path / "run.json"
    r = run_cli("watch", "-q", "--json", str(out), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_envs.py",
                cwd=tmp_path, env={"PYTHONPATH": str(site)})
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    tests = [e["test"].split("::")[1] for e in data["events"]]
    assert tests == ["test_rollouts"] * 3 + ["test_own_objects"] * 2
    found = _findings(data)
    assert [f["compile_index"] for f in found] == [1, 2]
    assert all(f["fix"]["title"] == fixes.REUSE_OBJECT.title for f in found)
    assert all(f["location"]["file"].endswith("test_envs.py") for f in found)  # the user's line that made the env


def test_jax_compiles_a_jit_per_object_once_per_object_and_one_jit_once():
    """The model against real JAX: traces counted by a Python side effect."""
    import functools

    import jax
    import jax.numpy as jnp

    traces = []

    class Env:
        def __init__(self):
            self.step = jax.jit(self.step_impl)

        def step_impl(self, x):
            traces.append(1)
            return x * 2.0

    for _ in range(3):
        Env().step(jnp.ones(3))
    assert len(traces) == 3                      # one trace (and compile) per object

    traces.clear()

    class ByValue:
        def __hash__(self):
            return 0

        def __eq__(self, other):
            return isinstance(other, ByValue)

        @functools.partial(jax.jit, static_argnums=0)
        def step(self, x):
            traces.append(1)
            return x * 2.0

    for _ in range(3):
        ByValue().step(jnp.ones(3))
    assert len(traces) == 1                      # the fix: jit once outside, self static and equal by value


MUTATING = '''
import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self):
        self.steps = 0

    def step(self, x):
        return x * 2.0 + 1.0

    def run(self, x):
        self.steps += 1                                   # the one object's state changes between compiles
        return jax.jit(lambda v: self.step(v))(x)         # a closure over self rebuilt at each call


t = Trainer()
x = jnp.ones(3)
for _ in range(3):
    x = t.run(x)
'''


def test_one_object_whose_attributes_changed_is_still_one_object(tmp_path):
    """The state digest tells two objects apart by what they hold; it does not make one object two: a closure over
    the same ``self`` rebuilt per call, with a counter on ``self`` moving, is "the same function rebuilt"."""
    (tmp_path / "prog.py").write_text(MUTATING)
    out = tmp_path / "run.json"
    r = run_cli("watch", "-q", "--json", str(out), "prog.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    states = {e["bindings"].rsplit("state=", 1)[-1] for e in data["events"]}
    assert len(data["events"]) == 3 and len(states) == 3, data["events"]  # three states of one object
    jw403 = [f for f in data["findings"] if f["code"] == "JW403"]
    assert len(jw403) == 2 and all("the same function rebuilt" in f["message"] for f in jw403), jw403
