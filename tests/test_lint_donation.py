"""JS610/JS611: donated buffers (``lint/donation.py``), checked under real JAX on CPU.

JAX deletes an argument donated to a jitted call when an output of the same shape and dtype reuses its buffer
(CPU donates too), so a later read raises ``RuntimeError: Array has been deleted``; ``jax.pmap`` donates
positional arguments only (``Transform.donates_positional_only``), while ``jax.jit`` maps keywords onto its donated
positions. The fixtures (tests/lint_fixtures/JS610.py, JS611.py; their ``# JS61x`` lines are checked by
tests/test_lint_rules.py) are imported and run here: every flagged function raises or leaves the caller's array
deleted, every look-alike runs and keeps it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.jaxmodel import known

FIXTURES = Path(__file__).parent / "lint_fixtures"


def _load(monkeypatch, name):
    monkeypatch.syspath_prepend(str(FIXTURES))
    sys.modules.pop(name, None)
    return __import__(name)


def _args():
    return jnp.ones(4), jnp.full(4, 2.0)


@pytest.mark.parametrize("fn", ["read_after", "read_after_named", "loop"])
def test_flagged_reads_of_a_donated_array_raise(monkeypatch, fn):
    mod = _load(monkeypatch, "JS610")
    with pytest.raises((RuntimeError, ValueError), match="deleted"):  # ValueError when a jit is handed it
        getattr(mod, fn)(*_args())


def test_a_method_donating_its_parameter_deletes_the_callers_array(monkeypatch):
    mod = _load(monkeypatch, "JS610")
    params, grads = _args()
    assert mod.Stats().run(params, grads) == {}
    assert params.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        jnp.sum(params)


@pytest.mark.parametrize("fn", ["rebind", "loop_rebinds", "metadata_only", "rebound_before_read", "gives_back",
                                "not_donated"])
def test_look_alikes_run(monkeypatch, fn):
    mod = _load(monkeypatch, "JS610")
    getattr(mod, fn)(*_args())


def test_js610_lines_and_severity():
    found = jitscope.lint([str(FIXTURES / "JS610.py")], config=False, jobs=1, select=["JS610"]).findings
    assert [f.location.line for f in found] == [22, 27, 33, 39]
    assert {f.severity for f in found} == {"warning"}
    assert "rebind it to the result" in found[0].message and found[0].details["related"][0]["line"] == 21


def _row(name):
    return known.lookup(name)


def test_model_pmap_donates_positional_arguments_only():
    """The jaxmodel rows: pmap ignores donation of keyword arguments; jit maps keywords onto donate_argnums."""
    assert _row("jax.pmap").donates_positional_only and not _row("jax.jit").donates_positional_only

    def f(a, b):
        return a + b

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = jax.pmap(f, donate_argnums=(0,))
        x, y = jnp.ones((1, 3)), jnp.ones((1, 3))
        p(a=x, b=y)
        assert not x.is_deleted()  # by keyword: not donated
        p(x, y)
        assert x.is_deleted()  # positionally: donated
        j = jax.jit(f, donate_argnums=(0,))
        x = jnp.ones(3)
        j(a=x, b=jnp.ones(3))
        assert x.is_deleted()  # jit maps the keyword onto position 0


def test_js611_fixture_keywords_keep_the_buffers(monkeypatch):
    mod = _load(monkeypatch, "JS611")
    for fn, kept in [("keyword_calls", True), ("positional_calls", False), ("jit_maps_keywords", False)]:
        state, batch = jnp.ones((1, 4)), jnp.ones((1, 4))
        getattr(mod, fn)(state, batch)
        assert state.is_deleted() is not kept, fn


def test_the_donation_model_runs_once_per_file(monkeypatch):
    """JS610/JS611 ask for the file's donation findings at every call node; the model runs once per file
    (computing it per node made a lint of flax's lift.py take 17 s instead of 0.2 s)."""
    from jitscope.lint import lint_source
    from jitscope.lint.rules import js610_donated_buffer_reused as js610

    runs = []
    real = js610.findings

    def counting(tree, resolve):
        runs.append(1)
        return real(tree, resolve)

    monkeypatch.setattr(js610, "findings", counting)
    src = "import jax\n\nstep = jax.jit(lambda x: x + 1, donate_argnums=0)\n\n\ndef run(x):\n" + "".join(
        f"    y{i} = abs(x) + len([x]) + step(x)\n" for i in range(20))
    lint_source(src, "many_calls.py")
    assert len(runs) == 1
