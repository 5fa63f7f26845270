"""JS405/JS406: caches that keep a tracer (docs/lint.md, "Caches"). A caching descriptor (``lazy_property``)
whose ``__get__`` stores the wrapped method's value on the instance, ``functools.cached_property`` and an
``lru_cache`` on a function computing with jnp keep a tracer when first filled under jit (real JAX: the cached
value is a tracer and the next trace or eager use raises UnexpectedTracerError); a cache that refuses tracers,
caches NumPy values or lives on an object made in the trace does not, and lint stays quiet on those."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

FIXTURE = Path(__file__).resolve().parent / "lint_fixtures" / "JS405.py"


def _fixture(path: Path = FIXTURE):
    """The fixture run as a module (a fresh one each time: its caches start empty)."""
    spec = importlib.util.spec_from_file_location(f"lint_fixture_{path.stem.lower()}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("method, attr", [("apply", "inv"), ("apply_half", "half")])
def test_a_caching_descriptor_read_first_under_jit_keeps_a_tracer(method, attr):
    s = _fixture().Scale(2.0)
    jax.jit(getattr(s, method))(1.0)
    assert isinstance(vars(s)[attr], jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        getattr(s, method)(1.0)


def test_a_descriptor_that_refuses_tracers_caches_nothing_under_jit():
    s = _fixture().Scale(2.0)
    assert float(jax.jit(s.apply_double)(1.0)) == 4.0
    assert "double" not in vars(s)
    assert float(s.apply_double(1.0)) == 4.0
    assert not isinstance(vars(s)["double"], jax.core.Tracer)  # cached eagerly, a concrete array


def test_functools_cached_property_behaves_the_same():
    class Scale:
        def __init__(self, s):
            self.s = jnp.asarray(s)

        @functools.cached_property
        def inv(self):
            return 1.0 / self.s

        def apply(self, x):
            return x * self.inv

    s = Scale(2.0)
    jax.jit(s.apply)(1.0)
    assert isinstance(vars(s)["inv"], jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        s.apply(1.0)


def _flagged(src: str, path: str = "m.py") -> set[str]:
    lines = src.splitlines()
    return {lines[f.location.line - 1].strip() for f in lint_source(src, path) if f.code == "JS405"}


def test_lint_flags_the_unguarded_stores_only():
    src = FIXTURE.read_text()
    marked = {line.strip() for line in src.splitlines() if line.rstrip().endswith("# JS405")}
    assert len(marked) == 2
    assert _flagged(src, str(FIXTURE)) == marked


def test_quiet_without_jax_and_on_other_stores():
    src = FIXTURE.read_text()
    assert _flagged(src.replace("import jax\nimport jax.numpy as jnp\n", "")) == set()
    other = '''
import jax

class registering:
    def __init__(self, fn):
        self.fn = fn

    def __get__(self, instance, owner=None):
        setattr(instance, "_seen", True)           # a constant, not the method's value
        return self.fn.__get__(instance, owner)
'''
    assert _flagged(other) == set()


FIXTURE406 = FIXTURE.with_name("JS406.py")


def _fixture406():
    return _fixture(FIXTURE406)


def test_an_lru_cache_filled_in_a_trace_hands_a_dead_tracer_to_the_next():
    mod = _fixture406()
    mod.shifted(jnp.ones(3))
    with pytest.raises(jax.errors.UnexpectedTracerError):
        mod.shifted(jnp.ones((2, 3)))  # a new shape: a new trace reads the cached tracer
    with pytest.raises(jax.errors.UnexpectedTracerError):
        mod.table(3) + 1  # and so does eager code


def test_caches_lint_leaves_alone_work_under_jit():
    mod = _fixture406()
    for shape in ((3,), (2, 3)):
        assert mod.shifted_np(jnp.ones(shape)).shape == shape  # NumPy and ensure_compile_time_eval: concrete
        assert mod.rebuilt(jnp.ones(shape)).shape == shape  # the object is made inside the trace
    s = mod.Scale(2.0)
    jax.jit(s.apply_sized)(jnp.ones(3))
    assert s.size == 1
    with pytest.raises(TypeError, match="unhashable"):
        mod.twice(jnp.ones(3))  # a traced argument fails at once: loud, not a leak


def test_a_cached_property_read_first_under_jit_keeps_a_tracer():
    s = _fixture406().Scale(2.0)
    jax.jit(s.apply)(jnp.ones(3))
    assert isinstance(vars(s)["inv"], jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        s.apply(jnp.ones(3))


def test_lint_flags_the_caches_filled_in_a_trace_only():
    src = FIXTURE406.read_text()
    marked = {line.strip() for line in src.splitlines() if line.rstrip().endswith("# JS406")}
    lines = src.splitlines()
    flagged = {lines[f.location.line - 1].strip() for f in lint_source(src, str(FIXTURE406)) if f.code == "JS406"}
    assert len(marked) == 2
    assert flagged == marked
