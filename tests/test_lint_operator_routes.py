"""Routes into a trace that no call expression shows (lint/operator_calls.py, lint/value_calls.py, Haiku modules).

- ``a + b`` / ``a == b`` on instances of a pytree class inside a jitted function run its ``__add__``/``__eq__`` on
  tracers: a Python ``if``/``and`` on a ``jnp`` result there raises TracerBoolConversionError.
- A step function passed as a value (``run(mh_step, x, 10)``) and called in a ``lax.fori_loop`` body, or taken
  from a module-level registry (``STEPS[name](s)``), is traced with the body's values.
- An ``hk.Module``'s ``__call__`` runs under ``jax.jit(hk.transform(f).apply)``.

Each flagged function raises under real ``jax.jit`` here; the look-alikes (an operator dunder without a Python
test, a registry value that branches on nothing traced, a private step function called only eagerly) run and
stay quiet.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope

SRC = '''\
import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Box:
    lo: jax.Array
    hi: jax.Array

    def __eq__(self, other):
        return jnp.all(self.lo == other.lo) and jnp.all(self.hi == other.hi)

    def __add__(self, other):
        if jnp.any(other.lo < 0):
            raise ValueError("negative")
        return Box(self.lo + other.lo, self.hi + other.hi)

    def __sub__(self, other):
        return Box(self.lo - other.lo, self.hi - other.hi)


@jax.jit
def merge(a: Box, b: Box):
    return (a + b).lo


@jax.jit
def same(a: Box, b: Box):
    return jnp.where(a == b, 1, 0)


@jax.jit
def shrink(a: Box, b: Box):
    return (a - b).hi


def mh_step(state):
    if jnp.sum(state) > 0:
        return state - 1
    return state + 1


def hmc_step(state):
    return state * 2


def _eager_step(state):
    if jnp.sum(state) > 0:
        return state - 1
    return state


def run(step_fn, state, n):
    def body(i, s):
        return step_fn(s)
    return jax.lax.fori_loop(0, n, body, state)


def run_eagerly(step_fn, state, n):
    for _ in range(n):
        state = step_fn(state)
    return state


STEPS = {"mh": mh_step, "hmc": hmc_step}


def run_named(name, state, n):
    return jax.lax.fori_loop(0, n, lambda i, s: STEPS[name](s), state)


def sample(x):
    return run(mh_step, x, 3)


def sample_eagerly(x):
    return run_eagerly(_eager_step, x, 3)
'''

HK = '''\
import haiku as hk
import jax
import jax.numpy as jnp


class Scale(hk.Module):
    def __call__(self, x, is_training: bool = False):
        w = hk.get_parameter("w", [], init=jnp.ones)
        if is_training:
            x = x * 0.5
        if jnp.linalg.norm(x) > 1.0:
            x = x / 2
        return w * x


def forward(x):
    return Scale()(x, is_training=True)


model = hk.transform(forward)
apply = jax.jit(model.apply)
'''


def _lint(tmp_path, name, text):
    pkg = tmp_path / "app"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / name).write_text(text)
    return jitscope.lint([str(pkg / name)], config=False, jobs=1)


def test_operator_dunders_and_step_functions_are_reached(tmp_path):
    found = {(f.code, f.location.line): f for f in _lint(tmp_path, "routes.py", SRC).findings}
    assert sorted(found) == [("JS101", 15), ("JS101", 39), ("JS102", 12)], sorted(found)
    assert all(f.severity == "warning" for f in found.values())
    assert "`same` (routes.py:30) runs it through an operator" in found[("JS102", 12)].message
    assert "`merge` (routes.py:25) runs it through an operator" in found[("JS101", 15)].message
    # mh_step is reached both as `run`'s parameter and through the registry; one finding, one of the two ways
    assert "calls it as a value" in found[("JS101", 39)].message


def test_registry_alone_reaches_its_values(tmp_path):
    text = SRC.replace("def sample(x):\n    return run(mh_step, x, 3)\n", "")
    found = [(f.code, f.location.line, f.severity) for f in _lint(tmp_path, "routes.py", text).findings]
    assert ("JS101", 39, "warning") in found, found
    got = next(f for f in _lint(tmp_path, "routes.py", text).findings if f.location.line == 39)
    assert "through the registry `STEPS`" in got.message


def test_haiku_module_call_is_traced_by_convention(tmp_path):
    found = [(f.code, f.location.line, f.severity) for f in _lint(tmp_path, "hkmod.py", HK).findings]
    assert found == [("JS101", 11, "warning")], found  # `if is_training:` is the caller's Python bool: quiet


def _ns(text, name):
    ns: dict = {}
    exec(compile(text, name, "exec"), ns)
    return ns


def test_flagged_routes_fail_under_real_jit_and_look_alikes_run():
    ns = _ns(SRC, "routes.py")
    box = ns["Box"](jnp.ones(2), jnp.ones(2))
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["merge"](box, box)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["same"](box, box)
    assert ns["shrink"](box, box).shape == (2,)  # `__sub__` has no Python test: runs
    assert bool(box == box) and (box + box).lo.shape == (2,)  # eagerly every dunder works
    x = jnp.ones(3)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["sample"](x)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["run_named"]("mh", x, 3)
    assert ns["run_named"]("hmc", x, 3).shape == (3,)
    assert ns["sample_eagerly"](x).shape == (3,)  # the private step is called only eagerly: runs


def test_haiku_module_fails_under_jitted_apply():
    pytest.importorskip("haiku")
    ns = _ns(HK, "hkmod.py")
    x = jnp.ones(3)
    params = ns["model"].init(jax.random.PRNGKey(0), x)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["apply"](params, None, x)
    assert ns["model"].apply(params, None, x).shape == (3,)  # eagerly it runs


ATTR = '''\
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp


def mh_step(state):
    if jnp.sum(state) > 0:
        return state - 1
    return state + 1


def nuts_step(state):
    if jnp.max(state) > 2:
        return state
    return state * 2


def _plain_step(state):
    return state * 2


class Sampler:
    def __init__(self, step_fn, n):
        self.step_fn = step_fn
        self.n = n

    def run(self, x):
        return jax.lax.fori_loop(0, self.n, lambda i, s: self.step_fn(s), x)


class Kernel(NamedTuple):
    init: Callable
    step: Callable


def run_kernel(kernel: Kernel, x):
    return jax.lax.scan(lambda s, _: (kernel.step(s), None), x, None, length=3)[0]


SAMPLER = Sampler(mh_step, 3)
PLAIN = Sampler(_plain_step, 3)
KERNEL = Kernel(lambda x: x, nuts_step)
'''


def test_step_functions_stored_on_an_instance_or_a_namedtuple_field_are_reached(tmp_path):
    found = {(f.code, f.location.line): f for f in _lint(tmp_path, "attr.py", ATTR).findings}
    assert sorted(found) == [("JS101", 8), ("JS101", 14)], sorted(found)
    assert "the `step_fn` a `Sampler` is built with, given it at line 41" in found[("JS101", 8)].message
    assert "the `step` a `Kernel` is built with, given it at line 43" in found[("JS101", 14)].message
    ns = _ns(ATTR, "attr.py")
    x = jnp.ones(3)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["SAMPLER"].run(x)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["run_kernel"](ns["KERNEL"], x)
    assert ns["PLAIN"].run(x).shape == (3,)  # the same route to a step without a Python test: runs


FLAX = '''\
import flax.linen as nn
import jax
import jax.numpy as jnp


class AE(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(x)

    def encode(self, x):
        h = jnp.tanh(x)
        if jnp.linalg.norm(h) > 1.0:
            h = h / 2
        return h

    def decode(self, h):
        return h * 2


model = AE()


@jax.jit
def enc(params, x):
    return model.apply(params, x, method=AE.encode)


@jax.jit
def dec(params, h):
    return model.apply(params, h, method=AE.decode)
'''


def test_flax_method_applied_as_the_module_is_traced_by_convention(tmp_path):
    found = [(f.code, f.location.line, f.severity) for f in _lint(tmp_path, "flaxm.py", FLAX).findings]
    assert found == [("JS101", 13, "warning")], found
    ns = _ns(FLAX, "flaxm.py")
    x = jnp.ones(3)
    params = ns["model"].init(jax.random.PRNGKey(0), x)
    assert ns["model"].apply(params, x, method=ns["AE"].encode).shape == (3,)  # eagerly it runs
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["enc"](params, x)
    assert ns["dec"](params, x).shape == (3,)  # the look-alike method without a Python test
