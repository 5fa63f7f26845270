"""analyze/divergence.py and ``jitscope merge`` on files (issue 16 items 2 and 3). The events are real
(recorded by ``jitscope.watch`` around real ``jax.jit`` calls); a second process is the same run with what
differs between processes set on copies: a program fingerprint (filled by another part of watch), a
persistent-cache outcome, a device in a sharding. tests/test_multiproc.py runs real 2-process jobs."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.analyze.divergence import compare_sequences, unmatched_programs
from jitscope.model import LeafSpec

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def run():
    with jitscope.watch() as w:
        f = jax.jit(lambda x: x * 2)
        g = jax.jit(lambda x: x + 1)
        f(jnp.ones(3))
        g(jnp.ones(3))
        f(jnp.ones(4))
    return w.result()


def as_process(events, index, **change):
    return [dataclasses.replace(e, process_index=index, **change) for e in events]


def test_identical_sequences_do_not_diverge(run):
    assert compare_sequences({0: as_process(run.events, 0), 1: as_process(run.events, 1)}) == []
    assert compare_sequences({0: as_process(run.events, 0)}) == []


def test_a_different_fingerprint_is_a_program_divergence_and_none_is_unknown(run):
    a = as_process(run.events, 0, fingerprint="aaaa")
    b = as_process(run.events, 1, fingerprint="aaaa")
    c = as_process(run.events, 2, fingerprint="aaaa")
    c[1] = dataclasses.replace(c[1], fingerprint="bbbb")  # same function and signature, another program
    [d] = compare_sequences({0: a, 1: b, 2: c})
    assert (d.kind, d.position, d.processes, d.differs) == ("program", 1, [2], ["fingerprint"])
    assert [g.processes for g in d.groups] == [[0, 1], [2]]
    unknown = as_process(run.events, 2, fingerprint=None)  # no fingerprint on one process: not a difference
    assert compare_sequences({0: a, 1: b, 2: unknown}) == []


def test_cache_outcome_and_call_site_diverge_without_a_program_divergence(run):
    a = as_process(run.events, 0, cache_hit=True)
    b = as_process(run.events, 1, cache_hit=True)
    b[2] = dataclasses.replace(b[2], cache_hit=False)
    site = b[0].call_site
    b[1] = dataclasses.replace(b[1], call_site=dataclasses.replace(site, line=site.line + 100))
    found = compare_sequences({0: a, 1: b})
    assert [(d.kind, d.position, d.differs) for d in found] == [("call_site", 1, ["call_site"]),
                                                                ("cache", 2, ["cache_hit"])]
    b[2] = dataclasses.replace(b[2], cache_hit=None)  # unknown on one process: not compared
    assert [d.kind for d in compare_sequences({0: a, 1: b})] == ["call_site"]


def test_a_process_that_stops_compiling_is_missing_and_the_other_kinds_stop_there(run):
    a, b = as_process(run.events, 0), as_process(run.events[:1], 1)
    [d] = compare_sequences({0: a, 1: b})
    assert (d.kind, d.position, d.processes, d.differs) == ("program", 1, [1], ["missing"])
    assert d.groups[1].event is None


def test_single_device_shardings_name_local_devices_and_are_not_compared(run):
    e = run.events[0]
    leaf = e.signature.leaves[0]
    on = {i: dataclasses.replace(e, signature=dataclasses.replace(e.signature, leaves=(
        LeafSpec(leaf.path, leaf.shape, leaf.dtype, leaf.weak_type, f"SingleDeviceSharding(device=CpuDevice(id={i}))"),
    ))) for i in (0, 2048)}
    assert compare_sequences({0: [on[0]], 1: [on[2048]]}) == []


def test_unmatched_programs_are_the_hang_case(run):
    mine = [(100.0, e) for e in as_process(run.events, 0)]
    peer = as_process(run.events[:2], 1)
    found = unmatched_programs(mine, 0, 2, {1: peer}, now=105.0, timeout=2.0)
    assert [(e.index, lacking) for e, lacking, _ in found] == [(2, [1])]
    assert unmatched_programs(mine, 0, 2, {1: peer}, now=101.0, timeout=2.0) == []  # not late yet
    assert len(unmatched_programs(mine, 0, 3, {1: peer}, now=105.0, timeout=2.0)) == 3  # process 2 published nothing


def cli(*args):
    return subprocess.run([str(BIN / "jitscope"), *args], capture_output=True, text=True, timeout=120)


def test_merge_refuses_bad_input_in_one_line(run, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    p = cli("merge", str(empty))
    assert p.returncode == 2 and p.stderr.startswith("jitscope: merge: no per-process watch files in") and \
        len(p.stderr.splitlines()) == 1, p.stderr
    p = cli("merge", str(tmp_path / "nope"))
    assert p.returncode == 2 and p.stderr.strip() == f"jitscope: {tmp_path / 'nope'}: no such file or directory"
    for name in ("a", "b"):  # two runs of process 0 in one directory
        r = dataclasses.replace(run, process_index=0, process_count=2)
        r.save(tmp_path / "two" / f"{name}.p0.json")
    p = cli("merge", str(tmp_path / "two"))
    assert p.returncode == 2 and "two runs of process 0" in p.stderr and len(p.stderr.splitlines()) == 1


def test_merge_reads_events_files_skips_one_process_runs_and_ignores_a_partial_line(run, tmp_path):
    for i in range(2):
        lines = [json.dumps(e.to_dict()) for e in as_process(run.events, i)]
        (tmp_path / f"ev{i}.jsonl").write_text("\n".join(lines) + ("\n" if i == 0 else '\n{"function": "tru'))
    run.save(tmp_path / "single.json")  # a run of one process: no process index
    result = jitscope.merge(tmp_path)
    assert [p.process_index for p in result.processes] == [0, 1] and result.divergences == []
    assert [p.compiles for p in result.processes] == [3, 3]
    assert result.skipped == [f"{tmp_path / 'single.json'}: not a process of a jax.distributed job (no process index)"]


def test_merge_refuses_to_write_over_a_file_it_reads(run, tmp_path):
    r = dataclasses.replace(run, process_index=0, process_count=2)
    r.save(tmp_path / "run.p0.json")
    before = (tmp_path / "run.p0.json").read_text()
    p = cli("merge", str(tmp_path), "--json", str(tmp_path / "run.p0.json"))
    assert p.returncode == 2 and "is a merged file; refusing to overwrite it" in p.stderr, p.stderr
    assert (tmp_path / "run.p0.json").read_text() == before
