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
    # JAX 0.11 and 0.12 have no jax_exec_time_optimization_effort: read each setting only where it exists
    SEEN.append((str(getattr(jax.config, "jax_optimization_level", None)),
                 float(getattr(jax.config, "jax_exec_time_optimization_effort", 0.0))))
    return jnp.sin(x) @ x


@pytest.mark.skipif(not effort_settings(), reason="this JAX has no compile-effort setting")
def test_each_effort_variant_compiles_under_its_setting_and_restores_the_users():
    before = (getattr(jax.config, "jax_optimization_level", None),
              getattr(jax.config, "jax_exec_time_optimization_effort", None))
    SEEN.clear()
    variants = effort_variants(traced)
    names = [label for label, _ in effort_settings()]
    assert [v.name for v in variants] == [f"jit [{n}]" for n in names]
    assert set(names) <= {"opt O0", "opt O1", "opt O2", "opt O3", "effort -1", "effort +1"}
    r = jitscope.compare(variants, (jnp.ones((64, 64)),), sample_seconds=0.02, min_samples=3)
    assert all(v.ok and v.jitted and v.compiles_first_call >= 1 for v in r.variants), r.errors
    levels = {level for level, _ in SEEN}
    efforts = {effort for _, effort in SEEN}
    if "opt O0" in names:
        assert {"O0", "O1", "O2", "O3"} <= levels
    if "effort -1" in names:
        assert {-1.0, 1.0} <= efforts
    assert (getattr(jax.config, "jax_optimization_level", None),
            getattr(jax.config, "jax_exec_time_optimization_effort", None)) == before
    if "opt O2" in names:
        assert "jax_optimization_level=O2" in r.variant("jit [opt O2]").description


def test_cli_effort_adds_the_variants_and_needs_a_target(cli):
    p = cli("compare", "--effort", "--variant", "a=inspect_integral:integrate_jnp", "--arg", "f32[]")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "jitscope: --effort needs the function as TARGET: jitscope compare MOD:FN --effort"]
    if not effort_settings():
        return
    p = cli("compare", "inspect_integral:integrate_jnp", "--arg", "f32[]", "--effort", "--sample-seconds", "0.02",
            "--min-samples", "3")
    assert p.returncode == 0, p.stderr
    for label, _ in effort_settings():
        assert f"jit [{label}]" in p.stdout


def test_effort_says_which_flags_this_jax_no_longer_has(cli, monkeypatch):
    """0.12 has no jax_exec_time_optimization_effort: --effort measures the flags it has and says, on one
    note line per missing flag, which variants it left out (feature-detected on the real jax.config)."""
    from jitscope.collect import variants

    missing = [flag for flag, _, _ in variants.EFFORT_FLAGS if not hasattr(jax.config, flag)]
    lines = variants.effort_flags_missing()
    assert [line.split(" has no ")[1].split(" ")[0] for line in lines] == missing
    if "jax_exec_time_optimization_effort" in missing:
        assert f"JAX {jax.__version__} has no jax_exec_time_optimization_effort (in JAX 0.6 - 0.10, removed in " \
               "0.11): jit [effort -1], jit [effort +1] left out" in lines
    # the mechanism on any JAX: a flag this JAX lacks is said and measured by no variant
    monkeypatch.setattr(variants, "EFFORT_FLAGS", (*variants.EFFORT_FLAGS,
                                                   ("jax_no_such_effort", (("hard", 1.0),), "in no JAX")))
    assert variants.effort_flags_missing()[-1] == f"JAX {jax.__version__} has no jax_no_such_effort (in no JAX): " \
                                                  "jit [hard] left out"
    assert "hard" not in [label for label, _ in variants.effort_settings()]
    monkeypatch.undo()
    if not effort_settings():
        return
    p = cli("compare", "inspect_integral:integrate_jnp", "--arg", "f32[]", "--effort", "--sample-seconds", "0.02",
            "--min-samples", "3")
    assert p.returncode == 0, p.stderr
    notes = [line for line in p.stderr.splitlines() if line.startswith("jitscope: note: --effort: ")]
    assert notes == [f"jitscope: note: --effort: {line}" for line in lines], p.stderr
