"""A function jitted through a project wrapper is traced (lint/wrapped.py).

``step = maybe_jit(train_step)`` (another module's wrapper or this one's), ``@maybe_jit``,
``@partial(maybe_jit, static_argnames=...)`` and a registry ``STEPS[k] = maybe_jit(f)`` trace the function
exactly as ``jax.jit`` written there would: the traced rules see it, its static parameters (the options the
call gives, forwarded by the wrapper's ``**kwargs``) stay Python values, and a wrapper whose jit is off by
default (``jit=False``, ``if not use_jit: return f``) leaves the function untraced. Each claim is run under real
jax: the Python ``if`` raises through the wrapper exactly where the lint says so, and the look-alikes run.
"""

from __future__ import annotations

import importlib
import sys

import jax
import jax.numpy as jnp
import pytest

import jitscope

UTILS = '''\
import jax


def maybe_jit(f, jit=True, **kwargs):
    return jax.jit(f, **kwargs) if jit else f


def debug_jit(f, use_jit=False):
    if not use_jit:
        return f
    return jax.jit(f)


def named_jit(f, static_argnames=()):
    return jax.jit(f, static_argnames=static_argnames)
'''

TRAIN = '''\
import functools

import jax.numpy as jnp

from .utils import debug_jit, maybe_jit, named_jit


def _train_step(x, n):
    if x > 0:                                   # 9: traced through maybe_jit
        return x * n
    return -x


def _static_step(x, n):
    if n > 0:                                   # 15: n is static (static_argnames forwarded)
        return x * n
    return -x


def _eager_step(x):
    if x > 0:                                   # 21: debug_jit's jit is off by default
        return x
    return -x


def _named_step(x, n):
    if n > 0:                                   # 27: static through the wrapper's own parameter
        return x * n
    return -x


def _on_step(x):
    if x > 0:                                   # 33: debug_jit(..., use_jit=True) jits it
        return x
    return -x


@maybe_jit
def _decorated(x):
    if x > 0:                                   # 40: decorated with the wrapper
        return x
    return -x


@functools.partial(maybe_jit, static_argnames=("n",))
def _decorated_static(x, n):
    if n > 0:                                   # 47: static through the partial's keywords
        return x * n
    return -x


def _registered(x):
    if x > 0:                                   # 53: a registry entry jits it
        return x
    return -x


step = maybe_jit(_train_step)
static_step = maybe_jit(_static_step, static_argnames=("n",))
eager_step = debug_jit(_eager_step)
named_step = named_jit(_named_step, static_argnames="n")
on_step = debug_jit(_on_step, use_jit=True)
STEPS = {}
STEPS["registered"] = maybe_jit(_registered)
'''


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    root = tmp_path / "wrapjit_pkg"
    root.mkdir()
    for name, text in (("__init__.py", ""), ("utils.py", UTILS), ("train.py", TRAIN)):
        (root / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m.partition(".")[0] == "wrapjit_pkg"]:
        del sys.modules[name]


def _js101(result) -> dict[int, object]:
    return {f.location.line: f for f in result.findings if f.code == "JS101"}


def test_functions_jitted_through_another_modules_wrapper_are_traced(pkg):
    found = _js101(jitscope.lint([str(pkg)], config=False, jobs=1, select=["JS101"]))
    assert sorted(found) == [9, 33, 40, 53], sorted(found)
    assert "traced because `maybe_jit` (utils.py:5) jits it" in found[9].message
    assert "`debug_jit` (utils.py:11) jits it" in found[33].message
    for line in (9, 33, 40, 53):  # private functions, every reference accounted for: certain
        assert found[line].severity == "error", (line, found[line].severity, found[line].message)


def test_real_jax_agrees_through_the_wrapper(pkg):
    train = importlib.import_module("wrapjit_pkg.train")
    x = jnp.asarray(2.0)
    for fn in (train.step, train.on_step, train._decorated, train.STEPS["registered"]):
        with pytest.raises(jax.errors.TracerBoolConversionError):
            fn(x) if fn is not train.step else fn(x, 3)
    # the look-alikes run: a static parameter, a wrapper whose jit is off by default
    assert float(train.static_step(x, n=3)) == 6.0
    assert float(train.named_step(x, n=3)) == 6.0
    assert float(train._decorated_static(x, n=3)) == 6.0
    assert float(train.eager_step(x)) == 2.0


def test_the_same_wrapper_in_one_module_and_a_conditional_jit(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(UTILS + '''

def loss(x):
    if x.sum() > 0:                             # 19: traced
        return x
    return -x


def other(x):
    if x.sum() > 0:                             # 25: maybe_jit(..., jit=False): never traced
        return x
    return -x


def unknown(x):
    if x.sum() > 0:                             # 31: jit=FLAG: traced on some calls only (a warning)
        return x
    return -x


FLAG = bool(len(__name__))
f = maybe_jit(loss)
g = maybe_jit(other, jit=False)
h = maybe_jit(unknown, jit=FLAG)
''')
    found = _js101(jitscope.lint([str(path)], config=False, jobs=1, select=["JS101"]))
    assert sorted(found) == [19, 31], sorted(found)
    assert found[19].severity == "error"
    assert found[31].severity == "warning"
    assert "traced because `maybe_jit` (script.py:5) jits it" in found[19].message


def test_a_method_bound_through_the_wrapper_in_init(tmp_path):
    path = tmp_path / "trainer.py"
    path.write_text(UTILS + '''

class Trainer:
    def __init__(self):
        self.step = maybe_jit(self._step)
        self.plain = debug_jit(self._plain)

    def _step(self, x):
        if x > 0:                               # 24: traced, `self` excluded
            return x
        return -x

    def _plain(self, x):
        if x > 0:                               # 29: debug_jit is off by default
            return x
        return -x
''')
    found = _js101(jitscope.lint([str(path)], config=False, jobs=1, select=["JS101"]))
    assert sorted(found) == [24], sorted(found)
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    trainer = namespace["Trainer"]()
    with pytest.raises(jax.errors.TracerBoolConversionError):
        trainer.step(jnp.asarray(1.0))
    assert float(trainer.plain(jnp.asarray(-1.0))) == 1.0


FACTORIES = '''\
import functools

import jax


def wrap_jit(*args, **kwargs):
    def wrapper(fun):
        foo = jax.jit(fun, *args, **kwargs)
        return functools.wraps(fun)(foo)

    return wrapper


def my_jit(**kwargs):
    return functools.partial(jax.jit, **kwargs)


@wrap_jit(static_argnames=("nu",))
def deriv(x, nu=0):
    if nu > 0:                                  # 20: nu is static
        return x * nu
    if x > 0:                                   # 22: traced
        return x
    return -x


@my_jit(static_argnames="n")
def power(x, n):
    if n > 1:                                   # 29: n is static
        return x * n
    if x > 1:                                   # 31: traced
        return x
    return -x
'''


def test_decorator_factories_trace_what_they_decorate(tmp_path):
    path = tmp_path / "factories.py"
    path.write_text(FACTORIES)
    found = _js101(jitscope.lint([str(path)], config=False, jobs=1, select=["JS101"]))
    assert sorted(found) == [22, 31], sorted(found)
    assert "traced because `wrap_jit` (factories.py:8) jits it" in found[22].message
    assert "traced because `my_jit` (factories.py:15) jits it" in found[31].message
    namespace: dict = {}
    exec(compile(FACTORIES, str(path), "exec"), namespace)
    for name in ("deriv", "power"):
        with pytest.raises(jax.errors.TracerBoolConversionError):
            namespace[name](jnp.asarray(2.0), 0)  # x reaches the traced `if`
    assert float(namespace["deriv"](jnp.asarray(2.0), nu=3)) == 6.0  # the static `if` alone works
    assert float(namespace["power"](jnp.asarray(2.0), n=3)) == 6.0


SELF_JIT = '''\
import jax


class Trainer:
    def jit(self, f, **kwargs):
        return jax.jit(f, **kwargs)

    def __init__(self):
        self.step = self.jit(self._step)
        self.other = self.jit(self._other, static_argnames="n")

    def _step(self, x):
        if x > 0:                               # 13: traced through the method `jit`
            return x
        return -x

    def _other(self, x, n):
        if n > 0:                               # 18: n is static
            return x * n
        return -x
'''


def test_a_method_of_the_class_that_jits_its_parameter(tmp_path):
    path = tmp_path / "selfjit.py"
    path.write_text(SELF_JIT)
    found = _js101(jitscope.lint([str(path)], config=False, jobs=1, select=["JS101"]))
    assert sorted(found) == [13], sorted(found)
    assert "traced because `jit` (selfjit.py:6) jits it" in found[13].message
    namespace: dict = {}
    exec(compile(SELF_JIT, str(path), "exec"), namespace)
    trainer = namespace["Trainer"]()
    with pytest.raises(jax.errors.TracerBoolConversionError):
        trainer.step(jnp.asarray(1.0))
    assert float(trainer.other(jnp.asarray(1.0), n=2)) == 2.0
