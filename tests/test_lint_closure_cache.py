"""JS403 on a closure's memo: ``cache[k] = v`` with ``v`` traced, where ``cache`` is a dict the (untraced) factory
of the jitted function built, keeps a tracer past its trace (real JAX: the next trace, a new shape, reads a dead
tracer and raises UnexpectedTracerError). A memo of Python values and a dict handed in by the caller (its type is
not seen: a Pallas Ref is written the same way) stay quiet (docs/lint.md, "Caches")."""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SOURCE = '''
import jax
import jax.numpy as jnp


def make_f():
    cache = {}

    @jax.jit
    def f(x):
        if "k" not in cache:
            cache["k"] = jnp.sin(x)  # JS403
        return x + cache["k"]

    return f


def make_h():
    seen = {}

    def h(x):
        if x.shape not in seen:
            seen[x.shape] = jnp.cos(x)  # JS403
        return seen[x.shape]

    return jax.jit(h)


def make_sizes():
    sizes = {}

    @jax.jit
    def m(x):
        sizes[x.shape] = x.shape[0]
        return x * len(sizes)

    return m, sizes


def make_g(out):
    @jax.jit
    def g(x):
        out["k"] = x * 2
        return x

    return g
'''


@pytest.fixture
def mod(tmp_path):
    path = tmp_path / "closure_cache.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("closure_cache", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.mark.parametrize("factory", ["make_f", "make_h"])
def test_a_closures_memo_filled_under_jit_hands_a_dead_tracer_to_the_next_trace(mod, factory):
    f = getattr(mod, factory)()
    f(jnp.ones(3))
    with pytest.raises(jax.errors.UnexpectedTracerError):
        f(jnp.ones(3, dtype=jnp.int32))  # a new trace (new dtype), same key: the memo hands it the old tracer


def test_a_memo_of_python_values_works_under_jit(mod):
    m, sizes = mod.make_sizes()
    m(jnp.ones(3))
    m(jnp.ones((2, 3)))
    assert sizes == {(3,): 3, (2, 3): 2}


def test_lint_flags_the_closure_memos_of_traced_values_only():
    lines = SOURCE.splitlines()
    flagged = {lines[f.location.line - 1].strip() for f in lint_source(SOURCE, "closure_cache.py") if f.code == "JS403"}
    assert flagged == {line.strip() for line in lines if line.rstrip().endswith("# JS403")}
