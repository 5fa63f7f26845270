"""inspect, compare and scale apply a library wrapper's static rules as the program does (issue #26 item 5).

``equinox.filter_jit`` keeps every non-array leaf static (a Python float learning rate, a Module's
float field); ``flax.nnx.jit`` takes ``static_argnums``. The programs here branch in Python on such a
static value, so an analysis that re-jits them with plain ``jax.jit`` (tracing the value) fails with a
tracer error: a test passes only when the wrapper's rules are applied. Real JAX, equinox and flax.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope

eqx = pytest.importorskip("equinox")


@pytest.fixture()
def steps(fixtures_on_path):
    import wrapped_steps

    return wrapped_steps


def test_inspect_traces_filter_jit_with_its_static_leaves(steps):
    r = jitscope.inspect(steps.eqx_step, *steps.model_and_args())
    assert r.status == "ok", [f.message for f in r.findings]
    assert r.signature.static == {"model.scale": "2.0", "lr": "0.1"}
    assert [leaf.path for leaf in r.signature.leaves][-1] == "x"
    assert len(r.signature.leaves) == 7  # 3 x (weight, bias) + x: the floats are not traced


def test_compare_keeps_filter_jit_for_the_jitted_variant(steps):
    r = jitscope.compare({"eager": steps.plain_step, "filter_jit": steps.eqx_step}, steps.model_and_args(),
                         sample_seconds=0.05, min_samples=3, phases=True)
    assert r.ok, r.errors
    v = r.variant("filter_jit")
    assert v.jitted and set(v.phases) == {"trace", "lower", "compile"}
    assert r.signature.static.get("lr") == "0.1"


def test_compare_cli_rebuilds_a_filter_jit_target_as_filter_jit(cli, fixtures_on_path, tmp_path):
    out = tmp_path / "r.json"
    p = cli("compare", "wrapped_steps:eqx_step", "--args-from", "wrapped_steps:model_and_args", "--sample-seconds",
            "0.05", "--no-phases", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = jitscope.load_result(str(out))
    assert [v.name for v in r.variants] == ["eager", "jit(plain_step)"] and r.ok, r.errors


def test_scale_measures_the_filter_jit_program(steps):
    r = jitscope.scale(steps.make_scaled, [1, 2], repeats=1, run=False)
    assert all(not p.error for p in r.points), [p.error for p in r.points]
    assert all(p.equations and p.equations > 0 for p in r.points)


def test_nnx_jit_static_argnums_are_honoured():
    nnx = pytest.importorskip("flax.nnx")

    class Lin(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(4, 4, rngs=rngs)

        def __call__(self, x):
            return self.lin(x)

    @nnx.jit(static_argnums=(2,))
    def repeat(model, x, n):
        for _ in range(n):  # range() of the static count: a tracer here would fail
            x = model(x)
        return x

    r = jitscope.inspect(repeat, Lin(nnx.Rngs(0)), jnp.ones(4), 3)
    assert r.status == "ok", [f.message for f in r.findings]
    assert r.signature.static == {"n": "3"}
    c = jitscope.compare({"nnx": repeat}, (Lin(nnx.Rngs(0)), jnp.ones(4), 3), sample_seconds=0.05, min_samples=3)
    assert c.ok, c.errors


def test_plain_jit_statics_unchanged():
    def f(x, n):
        for _ in range(n):
            x = x * 2
        return x

    r = jitscope.inspect(jax.jit(f, static_argnums=1), jnp.ones(3), 4)
    assert r.status == "ok" and r.signature.static == {"n": "4"}
