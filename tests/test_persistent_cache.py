"""watch records each compile's story with JAX's persistent compilation cache (issue 15 item 1):
hit or miss, written or why not, the key's components; real JAX, a real cache directory, real
``python -m jitscope watch`` subprocesses."""

from __future__ import annotations

import json
import re

import jax
import pytest

from jitscope.model import CACHE_KEY_COMPONENTS, CompileEvent

PROGRAM = '''
import os
import jax
import jax.numpy as jnp

if os.environ.get("CACHE_DIR"):
    jax.config.update("jax_compilation_cache_dir", os.environ["CACHE_DIR"])
if os.environ.get("MIN_SECS"):
    jax.config.update("jax_persistent_cache_min_compile_time_secs", float(os.environ["MIN_SECS"]))


@jax.jit
def step(x):
    return jnp.tanh(x) * 2.0


print(step(jnp.ones(8)).sum())
'''


def watch(tmp_path, name, **env):
    from conftest import compile_lines, run_cli

    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp_path / f"{name}.json"
    events = tmp_path / f"{name}.jsonl"
    r = run_cli("watch", "--json", str(out), "--events", str(events), str(prog), env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    [event] = [CompileEvent.from_dict(e) for e in data["events"]]
    [line] = compile_lines(events)  # the compile event (the program's own line left out)
    assert json.loads(line)["persistent_cache"] == data["events"][0]["persistent_cache"]  # the --events line too
    return event, data, r


def test_compile_under_the_threshold_is_not_written_and_says_why(tmp_path):
    # A threshold no tiny compile reaches on any machine: the reason is structural, not a timing.
    event, data, r = watch(tmp_path, "run", CACHE_DIR=str(tmp_path / "cache"), MIN_SECS="60")
    pc = event.persistent_cache
    assert pc is not None and pc.enabled and pc.outcome == "miss"
    assert pc.written is False and pc.not_written == "min_compile_time"
    assert pc.min_compile_seconds == 60 and pc.compile_seconds is not None and pc.compile_seconds < 60
    assert pc.rerun_saving_seconds == 0
    assert re.fullmatch(r"miss, not written: compiled in [0-9.e-]+ s < 60 s", pc.story()), pc.story()
    assert data["persistent_cache"]["written"] == 0
    assert data["persistent_cache"]["not_written"] == {"min_compile_time": 1}
    assert "Cache writes: 0 written; 1 not written (1 compiled in less than the threshold, e.g. step: " \
           "compiled in" in " ".join(r.stderr.split())
    assert not list((tmp_path / "cache").glob("jit_step-*"))  # JAX really wrote nothing


def test_written_then_hit_with_the_same_key_components(tmp_path):
    env = {"CACHE_DIR": str(tmp_path / "cache"), "MIN_SECS": "0"}
    first, _, _ = watch(tmp_path, "a", **env)
    second, data, _ = watch(tmp_path, "b", **env)
    a, b = first.persistent_cache, second.persistent_cache
    assert a is not None and b is not None
    assert a.outcome == "miss" and a.written is True and a.not_written is None
    assert a.rerun_saving_seconds > 0 and "written" in a.story()
    assert list((tmp_path / "cache").glob("jit_step-*"))
    assert b.outcome == "hit" and b.written is None and b.key == a.key
    assert [c.name for c in a.components] == list(CACHE_KEY_COMPONENTS)
    assert [(c.name, c.hash) for c in a.components] == [(c.name, c.hash) for c in b.components]
    values = {c.name: c.value for c in a.components}
    assert jax.__version__ in values["jax_lib version"]
    assert values["accelerator_config"] == "1 cpu device"
    assert values["XLA flags"] == "none"
    cache_dir = tmp_path / "cache"
    from jitscope import _jaxcompat

    if _jaxcompat.xla_cache_in_key("autotuning"):  # JAX 0.6 - 0.10 hash the autotuning directory
        assert values["compile_options"] == f"num_replicas=1 num_partitions=1, XLA autotuning cache {cache_dir}/" \
                                            "xla_gpu_per_fusion_autotune_cache_dir"
    else:  # 0.12 clears it before hashing (tests/test_cache_diff.py: a moved cache keeps its key)
        assert values["compile_options"] == "num_replicas=1 num_partitions=1"
    assert values["computation"] is None  # the program: its hash only
    assert data["persistent_cache"]["hits"] == 1


def test_cache_off_is_recorded_with_the_reason(tmp_path):
    event, data, r = watch(tmp_path, "off", JAX_COMPILATION_CACHE_DIR="")
    pc = event.persistent_cache
    assert pc is not None and not pc.enabled and pc.outcome == "disabled"
    assert pc.detail == "jax_compilation_cache_dir is not set" and not pc.components
    assert pc.story() == "off (jax_compilation_cache_dir is not set)"
    assert data["persistent_cache"]["written"] is None  # no compile used the cache: no write line
    assert "Cache writes" not in r.stderr and "Persistent compilation cache: off" in r.stderr


LOGGING_PROGRAM = '''
import logging, os, sys
logging.basicConfig(level=getattr(logging, sys.argv[1]), stream=sys.stderr)
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", os.environ["CACHE_DIR"])
jax.jit(lambda x: x + 1)(jnp.ones(2))
'''


@pytest.mark.parametrize("level,sees_key_lines", [("INFO", False), ("DEBUG", True)])
def test_users_logging_sees_what_it_saw_without_jitscope(tmp_path, level, sees_key_lines):
    """watch sets JAX's cache loggers to DEBUG to read the key; a user's handlers must not notice."""
    from conftest import run_cli

    prog = tmp_path / "logs.py"
    prog.write_text(LOGGING_PROGRAM)
    env = {"CACHE_DIR": str(tmp_path / "cache")}
    r = run_cli("watch", "-q", "--json", str(tmp_path / "r.json"), str(prog), level, env=env)
    assert r.returncode == 0, r.stderr
    assert ("get_cache_key hash of serialized computation" in r.stderr) is sees_key_lines
    [event] = json.loads((tmp_path / "r.json").read_text())["events"]
    assert len(event["persistent_cache"]["components"]) == len(CACHE_KEY_COMPONENTS)


CALLBACK_AND_SIZE = '''
import os
import jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", os.environ["CACHE_DIR"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 10**9)


@jax.jit
def noisy(x):
    jax.debug.print("x {}", x)
    return x * 2


@jax.jit
def small(x):
    return x + 1


noisy(jnp.ones(2))
small(jnp.ones(2))
'''


def test_host_callbacks_and_entry_size_are_named(tmp_path):
    from conftest import run_cli

    prog = tmp_path / "cb.py"
    prog.write_text(CALLBACK_AND_SIZE)
    r = run_cli("watch", "-q", "--json", str(tmp_path / "r.json"), str(prog), env={"CACHE_DIR": str(tmp_path / "c")})
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    records = {e["function"]: CompileEvent.from_dict(e).persistent_cache for e in data["events"]}
    noisy, small = records["noisy"], records["small"]
    from jitscope import _jaxcompat

    if _jaxcompat.cache_refuses_host_callbacks():  # JAX 0.6 - 0.10 never write a program with host callbacks
        assert noisy.not_written == "host_callbacks" and noisy.written is False
        assert noisy.story() == "miss, not written: uses host callbacks (jax.debug.print, io_callback, ...)"
        assert data["persistent_cache"]["not_written"] == {"host_callbacks": 1, "min_entry_size": 1}
    else:  # 0.12 caches them like any program: this one is refused for its size only, as `small` is
        assert noisy.not_written == "min_entry_size" and noisy.written is False and noisy.min_entry_bytes == 10**9
        assert data["persistent_cache"]["not_written"] == {"min_entry_size": 2}
    assert small.not_written == "min_entry_size" and small.min_entry_bytes == 10**9
    assert 0 < small.entry_bytes < 10**9
    assert small.story() == f"miss, not written: entry of {small.entry_bytes} bytes < 1000000000 bytes"
