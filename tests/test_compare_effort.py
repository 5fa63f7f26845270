"""compare's compile-effort axis (#14 item 4): jit(target) once per effort setting the installed JAX has,
each compiled under its setting, the user's settings restored afterwards."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.collect.variants import effort_settings, effort_variants

SEEN: list[tuple[str, float]] = []


def traced(x):
    # runs at trace time only: records the settings each variant's program was traced (and compiled) under
    SEEN.append((str(jax.config.jax_optimization_level), float(jax.config.jax_exec_time_optimization_effort)))
    return jnp.sin(x) @ x


@pytest.mark.skipif(not effort_settings(), reason="this JAX has no compile-effort setting")
def test_each_effort_variant_compiles_under_its_setting_and_restores_the_users():
    before = (jax.config.jax_optimization_level, jax.config.jax_exec_time_optimization_effort)
    SEEN.clear()
    variants = effort_variants(traced)
    assert [v.name for v in variants] == ["jit [opt O0]", "jit [opt O1]", "jit [opt O2]", "jit [opt O3]",
                                          "jit [effort -1]", "jit [effort +1]"]
    r = jitscope.compare(variants, (jnp.ones((64, 64)),), budget_s=0.02, min_samples=3)
    assert all(v.ok and v.jitted and v.compiles_first_call >= 1 for v in r.variants), r.errors
    levels = {level for level, _ in SEEN}
    efforts = {effort for _, effort in SEEN}
    assert {"O0", "O1", "O2", "O3"} <= levels and {-1.0, 1.0} <= efforts
    assert (jax.config.jax_optimization_level, jax.config.jax_exec_time_optimization_effort) == before
    assert "jax_optimization_level=O2" in r.variant("jit [opt O2]").description


def test_cli_effort_adds_the_variants_and_needs_a_target(cli):
    p = cli("compare", "--effort", "--variant", "a=inspect_integral:integrate_jnp", "--arg", "f32[]")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "jitscope: --effort needs the function as TARGET: jitscope compare MOD:FN --effort"]
    if not effort_settings():
        return
    p = cli("compare", "inspect_integral:integrate_jnp", "--arg", "f32[]", "--effort", "--budget", "0.02",
            "--min-samples", "3")
    assert p.returncode == 0, p.stderr
    for name in ("jit [opt O0]", "jit [opt O3]", "jit [effort -1]", "jit [effort +1]"):
        assert name in p.stdout
