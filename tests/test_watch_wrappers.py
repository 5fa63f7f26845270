"""#11 item 1: functions jitted through ``equinox.filter_jit`` and ``flax.nnx.jit`` are reported at the
user's definition and call site, with the user's argument names, and counted exactly.

equinox and flax are in the test extras (the JAX matrix venvs install neither: there these skip).
"""

from __future__ import annotations

import collections
import os
import textwrap

import pytest
from jax import monitoring

from jitscope import _jaxcompat
from jitscope._watch import watch_program

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"


def _run(tmp_path, text: str):
    """Run the program under watch; also JAX's own backend-compile count per module name."""
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(text))
    truth: collections.Counter[str] = collections.Counter()

    def span(event, start, end, **kw):  # type: ignore[no-untyped-def]
        if event == BACKEND_COMPILE:
            truth[str(kw.get("fun_name"))] += 1

    monitoring.register_event_time_span_listener(span)
    try:
        result = watch_program(str(path), [], explain=False)
    finally:
        _jaxcompat.unregister_listener("span", span)
    assert result.exit_code == 0, result.crash
    return str(path), result, truth


def _no_library_frames(result) -> None:
    for e in result.events:
        for loc in (e.definition, e.call_site):
            assert loc is not None
            assert os.sep + "equinox" + os.sep not in loc.file and os.sep + "flax" + os.sep not in loc.file


def test_equinox_filter_jit_names_the_users_function_site_and_arguments(tmp_path):
    pytest.importorskip("equinox")
    path, result, truth = _run(tmp_path, '''\
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        class MLP(eqx.Module):
            w: jax.Array
            act: str = eqx.field(static=True)

            def __call__(self, x):
                return jnp.tanh(self.w @ x)


        @eqx.filter_jit
        def loss(model, x, y, lr):
            return jnp.mean((model(x) - y) ** 2) * lr


        model = MLP(jnp.ones((3, 3)), "tanh")
        loss(model, jnp.ones(3), jnp.ones(3), 0.1)
        loss(model, jnp.ones(3), jnp.ones(3), 0.1)  # cached
        loss(model, jnp.ones(3), jnp.ones(3, dtype=jnp.int32), 0.1)
        loss(model, jnp.ones(3), jnp.ones(3), 0.2)  # a Python float is static under filter_jit
        ''')
    assert [e.function for e in result.events] == ["loss"] * 3
    assert len(result.events) == truth["jit(loss)"] == 3
    _no_library_frames(result)
    e0, e1, e2 = result.events
    assert (e0.definition.file, e0.definition.line) == (path, 14)  # the decorator line, as for jax.jit
    assert [e.call_site.line for e in result.events] == [20, 22, 23]
    assert [leaf.path for leaf in e0.signature.leaves] == ["model.w", "x", "y"]
    assert e0.signature.static == {"lr": "0.1"}
    assert (e1.reason.category, e1.reason.detail) == ("dtype_change", "y: f32[3] -> i32[3]")
    assert (e2.reason.category, e2.reason.detail.split(";")[0]) == ("static_value_change", "lr: 0.1 -> 0.2")
    fix = next(f for f in result.fixes if f.title.startswith("Fix the dtype"))
    assert "`y`" in fix.title and fix.location.file == path


def test_equinox_module_method_and_closure_sites(tmp_path):
    pytest.importorskip("equinox")
    path, result, truth = _run(tmp_path, '''\
        import equinox as eqx
        import jax.numpy as jnp


        def make(scale):
            @eqx.filter_jit
            def apply(x):
                return x * scale
            return apply


        for s in (1.0, 2.0):
            make(s)(jnp.ones(2))
        ''')
    assert len(result.events) == truth["jit(apply)"] == 2
    _no_library_frames(result)
    assert {e.definition.line for e in result.events} == {6}
    assert {e.call_site.line for e in result.events} == {13}
    assert result.events[1].reason.category == "new_function_object"


def test_grad_of_equinox_filter_jit_counts_the_backward_program_as_the_users(tmp_path):
    pytest.importorskip("equinox")
    path, result, truth = _run(tmp_path, '''\
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        @eqx.filter_jit
        def energy(x, y):
            return jnp.sum(jnp.sin(x) * y)


        jax.grad(energy)(jnp.ones(3), 2.0)
        ''')
    # the backward program's debug info names equinox's wrapper: it is still the user's `energy`
    assert [(e.function, e.transform) for e in result.events] == [("energy", "grad"), ("energy", "backward")]
    assert len(result.events) == truth["jit(energy)"] == 2
    _no_library_frames(result)
    assert {(e.definition.line, e.call_site.line) for e in result.events} == {(6, 11)}


def test_flax_nnx_jit_reports_the_users_call_site(tmp_path):
    pytest.importorskip("flax.nnx")
    path, result, truth = _run(tmp_path, '''\
        import jax.numpy as jnp
        from flax import nnx


        class Lin(nnx.Module):
            def __init__(self):
                self.w = nnx.Param(jnp.ones((3, 3)))

            def __call__(self, x):
                return self.w @ x


        @nnx.jit
        def step(model, x):
            return model(x).sum()


        m = Lin()
        step(m, jnp.ones(3))
        step(m, jnp.ones(3))
        step(m, jnp.ones(3, dtype=jnp.int32))
        ''')
    assert len(result.events) == truth["jit(step)"] == 2
    _no_library_frames(result)
    assert [(e.definition.line, e.call_site.line) for e in result.events] == [(13, 19), (13, 21)]
    paths = [leaf.path for leaf in result.events[0].signature.leaves]
    assert paths[-1] == "x" and all(p.startswith("model") for p in paths[:-1])
    assert result.events[1].reason.detail == "x: f32[3] -> i32[3]"
