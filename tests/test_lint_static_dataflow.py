"""What reaches a static argument through data flow, and where its finding is anchored.

jit hashes its static arguments at the call, before anything traces (docs/lint.md, "Static arguments"):

- a dict a module function returns on every ``return`` (``run(x, make_config())``) raises ValueError
  "Non-hashable static arguments" like the literal would (JS602 reads the function's returns,
  lint/returns.py ``returned_values``); a function returning a tuple, or a dict on one path only, is not
  an error;
- an array at a static position raises too, and its fix is at the declaration (drop the position from
  ``static_argnums``), so JS602 also reports at the ``static_argnums`` element, once per position;
- a static argument given a value that changes every iteration compiles every iteration (JS208): also
  reported at the declared position, where the fix goes.

Each program is run under real jax.jit here, and the look-alikes stay quiet.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope

SOURCE = '''\
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(1,))
def run(x, cfg):
    return x * len(cfg)


def make_config():
    return {"depth": 2}


def make_named():
    cfg = {"depth": 3}
    return cfg


def make_tuple():
    return ("depth", 2)


def sometimes(flag):
    if flag:
        return {"depth": 2}
    return ("depth", 2)


def falls_off(flag):
    if flag:
        return {"depth": 2}


@functools.partial(jax.jit, static_argnums=(1, 2))
def train(x, support, gamma):
    return x * support.sum() * gamma


class Agent:
    def __init__(self):
        self.support = jnp.linspace(0.0, 1.0, 5)

    def step(self, x):
        return train(x, self.support, 0.9)

    def again(self, x):
        return train(x, self.support, 0.5)


def main(x):
    run(x, make_config())
    run(x, make_named())
    run(x, make_tuple())
    run(x, sometimes(True))
    run(x, falls_off(True))
    return Agent().step(x)
'''


def _lint(tmp_path, source: str, select: list[str]):
    path = tmp_path / "prog.py"
    path.write_text(source)
    return jitscope.lint([str(path)], config=False, jobs=1, select=select).findings


def test_js602_reads_what_a_function_returns_and_anchors_arrays_at_the_declaration(tmp_path):
    found = _lint(tmp_path, SOURCE, ["JS602"])
    got = sorted((f.location.line, f.severity) for f in found)
    # 36: the `static_argnums` element of `support` (once for two calls); 46 and 49: the calls; 53, 54: the dicts
    assert got == [(36, "error"), (46, "error"), (49, "error"), (53, "error"), (54, "error")], got
    by_line = {f.location.line: f.message for f in found}
    assert "a dict `make_config` returns" in by_line[53]
    assert "a tuple of its items" in by_line[53]
    assert "passed a JAX array (line 46)" in by_line[36] and "drop it from the static arguments" in by_line[36]
    assert by_line[36].startswith("static argument `support` of `train`")


def test_the_flagged_calls_raise_and_the_look_alikes_run():
    ns: dict = {}
    exec(compile(SOURCE, "prog.py", "exec"), ns)
    x = jnp.ones(3)
    for bad in (ns["make_config"](), ns["make_named"]()):
        with pytest.raises(ValueError, match="Non-hashable static arguments"):
            ns["run"](x, bad)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        ns["Agent"]().step(x)
    assert ns["run"](x, ns["make_tuple"]()).shape == (3,)
    assert ns["run"](x, ns["sometimes"](False)).shape == (3,)  # the tuple path of a function that may return a dict


LOOP = '''\
from functools import partial

import jax


def fit(x, state, steps):
    @partial(jax.jit, static_argnums=(1,))
    def sample(x, state):
        return x * state[1]

    for _ in range(steps):
        x = sample(x, state)
        state = (state[0], state[1] + 1)
    return x


def fixed(x, steps):
    @partial(jax.jit, static_argnums=(1,))
    def sample(x, scale):
        return x * scale

    for _ in range(steps):
        x = sample(x, 2)
    return x
'''


def test_js208_also_anchors_at_the_declared_static_position(tmp_path):
    found = _lint(tmp_path, LOOP, ["JS208"])
    got = sorted((f.location.line, f.severity) for f in found)
    assert got == [(7, "warning"), (12, "warning")], got
    decl = next(f for f in found if f.location.line == 7)
    assert "(line 12), which changes on every iteration of the loop at line 11" in decl.message
    assert "drop it from the static arguments" in decl.message


def test_a_static_that_changes_each_iteration_compiles_each_iteration():
    ns: dict = {}
    exec(compile(LOOP, "loop.py", "exec"), ns)
    traces: list[int] = []

    def body(x, state):
        traces.append(1)
        return x * state[1]

    sample = jax.jit(body, static_argnums=(1,))
    x, state = jnp.ones(2), ("k", 1)
    for _ in range(3):
        x = sample(x, state)
        state = (state[0], state[1] + 1)
    assert len(traces) == 3
    assert float(ns["fit"](jnp.ones(2), ("k", 1), 3)[0]) == 6.0  # the program itself runs (it only recompiles)


CONFIG = '''\
import dataclasses
import functools
from typing import NamedTuple

import jax


@dataclasses.dataclass(frozen=True)
class Config:
    axes: list
    depth: int = 2
    names: list = dataclasses.field(default_factory=list, compare=False)


@dataclasses.dataclass(frozen=True)
class Defaults:
    axes: list = dataclasses.field(default_factory=list)


class Spec(NamedTuple):
    dims: tuple
    names: dict


@functools.partial(jax.jit, static_argnames=("cfg",))
def total(x, cfg):
    return x.sum() * len(cfg)


CFG = Config(axes=[0], depth=3)
GOOD = Config(axes=(0,), depth=3, names=["left out of the hash"])


def main(x):
    total(x, cfg=CFG)
    total(x, cfg=Config([0]))
    total(x, cfg=GOOD)
    total(x, cfg=Spec((0,), {"a": 1}))
    total(x, cfg=Spec((0,), ("a",)))
    total(x, cfg=Defaults())
'''


def test_js604_an_instance_hashing_its_fields_with_a_list_in_one(tmp_path):
    """A frozen (or ``unsafe_hash``) dataclass and a NamedTuple hash the tuple of their fields: one holding a
    list, dict, set or array (given at construction, or by ``default_factory=list``) cannot be hashed."""
    found = _lint(tmp_path, CONFIG, ["JS604"])
    got = [(f.location.line, f.severity) for f in found]
    assert got == [(35, "error"), (36, "error"), (38, "error"), (40, "error")], got  # 37, 39: hashable
    assert "`Config` hashes its fields (a frozen dataclass) and its field `axes` is given a list (line 30)" \
        in found[0].message
    assert "a NamedTuple" in found[2].message and "a list by its `default_factory`" in found[3].message


def test_instances_hashing_their_fields_raise_at_a_static_position():
    ns: dict = {}
    exec(compile(CONFIG.replace("len(cfg)", "1"), "config.py", "exec"), ns)
    x = jnp.ones(2)
    for bad in (ns["CFG"], ns["Config"]([0]), ns["Spec"]((0,), {"a": 1}), ns["Defaults"]()):
        with pytest.raises(ValueError, match="Non-hashable static arguments"):
            ns["total"](x, cfg=bad)
    assert float(ns["total"](x, cfg=ns["GOOD"])) == 2.0  # a compare=False field is left out of the hash
    assert float(ns["total"](x, cfg=ns["Spec"]((0,), ("a",)))) == 2.0


SELF = (Path(__file__).parent / "lint_fixtures" / "JS604_self.py").read_text()


def test_js604_self_declared_static_on_a_method(tmp_path):
    """``self`` static in a jit of a method: jit hashes the instance on every call."""
    found = _lint(tmp_path, SELF, ["JS604"])
    got = [(f.location.line, f.severity) for f in found]
    assert got == [(18, "warning"), (27, "error")], got  # Frozen (36) hashes its int field; Lifted uses nn.jit
    assert "flax linen Module, which cannot be hashed once bound" in found[0].message


def test_self_static_raises_on_a_bound_linen_module_and_an_unhashable_class():
    ns: dict = {}
    exec(compile(SELF, "self_static.py", "exec"), ns)
    x = jnp.ones((1, 2))
    model = ns["Model"]()
    assert model.init_cache(b=2).shape == (2, 3)  # unbound: hashed by its fields
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        model.init(jax.random.key(0), x)  # `__call__` runs it on the bound module (it holds variables)
    with pytest.raises((TypeError, ValueError), match="hold variables|Non-hashable"):
        model.bind({"params": {}}).init_cache(b=2)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        ns["Plain"]().run(x)
    assert float(ns["Frozen"]().run(x)[0, 0]) == 3.0
    lifted = ns["Lifted"]()  # flax's nn.jit with `self` static: runs on the bound module (not flagged)
    assert lifted.apply({}, b=2, method=lifted.init_cache).shape == (2, 3)
