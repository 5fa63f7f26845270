"""`d.update(k=v)` / `d.update({...})` on a dict the jitted function closes over stores tracers in a dict
that outlives the trace (real JAX: the stored value is a tracer, and using it raises
UnexpectedTracerError); lint reads those two call forms as dict.update even when it cannot see the
dict's type (a parameter of the enclosing factory), and stays quiet on `obj.update(x)`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

FIXTURE = Path(__file__).resolve().parent / "lint_fixtures" / "JS403.py"


def _fixture():
    spec = importlib.util.spec_from_file_location("lint_fixture_js403_update", FIXTURE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("factory, key", [("make_recorder", "last"), ("make_tracker", "mean")])
def test_dict_update_in_a_jitted_closure_leaks_a_tracer(factory, key):
    d: dict = {}
    f = getattr(_fixture(), factory)(d)
    f(jnp.ones(3))
    assert isinstance(d[key], jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jnp.sum(d[key]) + 1


def test_lint_flags_both_dict_forms_and_not_an_unknown_update():
    src = FIXTURE.read_text()
    lines = {f.location.line for f in lint_source(src, str(FIXTURE)) if f.code == "JS403"}
    text = src.splitlines()
    flagged = {text[n - 1].strip() for n in lines}
    assert 'cache.update(last=x * 2)  # JS403' in flagged
    assert 'stats.update({"mean": x.mean()})  # JS403' in flagged
    assert not any(t.startswith(("ema.update", "metrics.update")) for t in flagged)


def test_a_typed_objects_own_update_with_keywords_works_under_jit():
    mod = _fixture()
    m = mod.Metrics()
    mod.make_logger(m)(jnp.ones(3))
    assert m.names == ["loss"]
