"""``jitscope diff`` names the persistent-cache key component that changed between two runs (issue 15
item 2): real watch subprocesses sharing a real cache directory; each run B changes one thing."""

from __future__ import annotations

import json

import pytest

from jitscope._diff import diff
from jitscope.analyze.cache_diff import CacheMissCause, cache_miss_causes
from jitscope.model import CompileEvent

PROGRAM = '''
import os
import jax
import jax.numpy as jnp

jax.config.update("jax_compilation_cache_dir", os.environ["CACHE_DIR"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
SCALE = float(os.environ.get("SCALE", "2.0"))  # captured by step: a constant baked into the program
OP = jnp.cos if os.environ.get("OP") == "cos" else jnp.sin


@jax.jit
def step(x):
    return OP(x) * SCALE


print(step(jnp.ones(8)).sum())
'''

# Run B's change against A (no XLA_FLAGS, SCALE 2.0, sin, cache shared with A).
CHANGES = {
    "xla_flag": {"XLA_FLAGS": "--xla_cpu_enable_fast_math=true"},
    "devices": {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"},
    "constant": {"SCALE": "3.0"},
    "program": {"OP": "cos"},
    "same": {},
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import run_cli

    d = tmp_path_factory.mktemp("cache_diff")
    prog = d / "prog.py"
    prog.write_text(PROGRAM)

    def watch(name: str, cache: str, **env: str):
        out = d / f"{name}.json"
        r = run_cli("watch", "-q", "--json", str(out), str(prog), env={"CACHE_DIR": str(d / cache), "XLA_FLAGS": "",
                                                                        **env})
        assert r.returncode == 0, r.stderr
        return out

    paths = {"a": watch("a", "cache")}
    for name, env in CHANGES.items():
        paths[name] = watch(name, "cache", **env)
    paths["other_dir"] = watch("other_dir", "elsewhere")
    for entry in (d / "cache").iterdir():  # evicted: the same key, no entry
        if entry.is_file():
            entry.unlink()
    paths["evicted"] = watch("evicted", "cache")
    return paths


def causes(runs, name) -> list[CacheMissCause]:
    return diff(runs["a"], runs[name]).cache_misses


def test_xla_flag_named_with_the_flag_added(runs):
    [cause] = causes(runs, "xla_flag")
    assert cause.function == "step" and cause.outcome_a == "written" and cause.verdict == "changed"
    # XLA_FLAGS are hashed twice by JAX: as flags, and parsed into the compile options' debug options.
    assert [c.name for c in cause.changed] == ["XLA flags", "compile_options"]
    assert cause.changed[0].added == ["--xla_cpu_enable_fast_math=true"] and cause.changed[0].removed == []
    assert cause.summary.startswith("XLA flags: --xla_cpu_enable_fast_math=true added; compile_options changed")


def test_device_count_named_with_both_counts(runs):
    [cause] = causes(runs, "devices")
    assert [c.name for c in cause.changed] == ["accelerator_config"]
    assert cause.summary == "accelerator_config: 1 cpu device -> 8 cpu devices"


@pytest.mark.parametrize("name", ["constant", "program"])
def test_captured_constant_or_new_program_is_the_computation(runs, name):
    [cause] = causes(runs, name)
    assert [c.name for c in cause.changed] == ["computation"]
    # and how the computation changed, from the program comparison of the same diff
    if name == "constant":
        assert cause.summary == "computation (differs only in constants: 2 : f32 in A, 3 : f32 in B)"
    else:
        assert cause.summary.startswith("computation (first differing op")
        assert "sine" in cause.summary and "cosine" in cause.summary


def test_unchanged_rerun_hits_and_names_nothing(runs):
    assert causes(runs, "same") == []
    b = json.loads(runs["same"].read_text())
    assert b["events"][0]["persistent_cache"]["outcome"] == "hit"


def test_same_key_but_no_entry_says_so(runs):
    [cause] = causes(runs, "evicted")
    assert cause.verdict == "same_key" and cause.changed == []
    assert "entry was not in B's cache" in cause.summary


def test_another_cache_directory_is_named_where_this_jax_keys_on_it(runs):
    # JAX puts XLA's autotuning cache, beside the persistent cache, in the compile options. JAX 0.6 - 0.10
    # hash it, so moving the cache directory changes every key; 0.12 clears it before hashing, so the key
    # is the same and only the entry is missing. _jaxcompat.xla_cache_in_key reads which from JAX itself;
    # the real runs here show the key JAX computed agrees with it.
    from jitscope import _jaxcompat

    [cause] = causes(runs, "other_dir")
    if _jaxcompat.xla_cache_in_key("autotuning"):
        assert [c.name for c in cause.changed] == ["compile_options"]
        assert cause.summary.startswith("compile_options: num_replicas=1 num_partitions=1, XLA autotuning cache ")
        assert "/cache/xla_gpu_per_fusion_autotune_cache_dir -> " in cause.summary
        assert cause.summary.endswith("/elsewhere/xla_gpu_per_fusion_autotune_cache_dir")
    else:
        assert cause.verdict == "same_key" and cause.changed == [], cause.summary
        assert "entry was not in B's cache (another cache directory" in cause.summary
        b = json.loads(runs["other_dir"].read_text())["events"][0]["persistent_cache"]
        options = next(c for c in b["components"] if c["name"] == "compile_options")
        assert options["value"] == "num_replicas=1 num_partitions=1"  # the directory is not in the key


def test_console_json_and_html_show_it(runs, cli, tmp_path):
    r = cli("diff", "--json", str(tmp_path / "d.json"), "--html", str(tmp_path / "d.html"),
            str(runs["a"]), str(runs["devices"]))
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "persistent-cache misses in B that hit or were written in A: 1" in text
    assert "step (compile #0" in text and "accelerator_config: 1 cpu device -> 8 cpu devices" in text
    saved = json.loads((tmp_path / "d.json").read_text())
    [miss] = saved["cache_misses"]
    assert miss["changed"][0] == {"name": "accelerator_config", "value_a": "1 cpu device",
                                  "value_b": "8 cpu devices", "added": [], "removed": []}
    assert "accelerator_config: 1 cpu device -&gt; 8 cpu devices" in (tmp_path / "d.html").read_text()


def test_files_without_cache_records_name_nothing(runs):
    def stripped(path):
        events = [CompileEvent.from_dict(e) for e in json.loads(path.read_text())["events"]]
        for e in events:
            e.persistent_cache = None  # a file written before the field existed
        return events

    assert cache_miss_causes(stripped(runs["a"]), stripped(runs["devices"])) == []
