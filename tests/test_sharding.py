"""Sharded programs on 8 CPU devices: inspect's per-device shapes and collectives, watch's sharding reasons.

JAX reads ``--xla_force_host_platform_device_count`` once, when it starts, and the rest of the
suite runs on one device; so every program here runs in its own ``python -m jitscope``
subprocess with ``XLA_FLAGS`` set (the commands docs/inspect.md "Multi-device" shows).
The parser tests at the end read HLO text only (no devices needed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

from jitscope.analyze.collectives import collectives, group_size, moved_bytes, type_bytes
from jitscope.schema import validate

# One worker runs them all under `--dist loadgroup`, so the module fixture's inspections run once.
pytestmark = pytest.mark.xdist_group("sharding")

PROGRAM = "tests/fixtures/sharded_programs.py"
EIGHT = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
SOURCE = (FIXTURES / "sharded_programs.py").read_text().splitlines()


def line_of(text: str) -> int:
    """The fixture's line holding ``text`` (so the tests survive edits above it)."""
    return next(i for i, line in enumerate(SOURCE, 1) if text in line)


def inspect_json(tmp_path: Path, fn: str, factory: str, *more: str) -> tuple[dict, str]:
    out = tmp_path / f"{fn}_{factory}.json"
    p = run_cli("inspect", f"{PROGRAM}:{fn}", "--args-from", f"{PROGRAM}:{factory}", "--no-numerics",
                "--sample-seconds", "0.02", "--json", str(out), *more, env=EIGHT)
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    validate(data)
    return data, p.stdout


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Each inspect run once for the module: (JSON, console text) by target."""
    tmp = tmp_path_factory.mktemp("sharding")
    return {key: inspect_json(tmp, fn, factory) for key, fn, factory in (
        ("matmul", "matmul", "matmul_args"), ("total", "total", "total_args"),
        ("constrained", "constrained", "rows_args"), ("out_cols", "out_cols", "rows_args"),
        ("rowwise", "rowwise", "replicated_args"), ("rowwise_one_device", "rowwise", "one_device_args"))}


def test_sharded_matmul_all_reduce_with_bytes_and_line(results):
    data, text = results["matmul"]
    layout = data["shard_layout"]
    assert layout["devices"] == 8
    assert [(v["path"], v["shape"], v["shard_shape"]) for v in layout["inputs"]] == [
        ("x", [64, 32], [64, 4]), ("w", [32, 16], [4, 16])]
    assert layout["inputs"][0]["sharding"] == "NamedSharding(mesh=('x':8), spec=P(None, 'x'))"
    assert layout["outputs"][0]["shard_shape"] == [64, 16] and layout["outputs"][0]["replicated"]
    (c,) = data["collectives"]["collectives"]
    # per-device partial sums f32[64,16] = 4096 bytes; ring all-reduce over 8: 2*7/8*4096 = 7168 sent
    assert (c["kind"], c["operand_bytes"], c["group_size"], c["moved_bytes"]) == ("all-reduce", 4096, 8, 7168)
    assert c["origin"] == "partitioner" and c["primitive"] == "dot_general"
    assert c["location"]["line"] == line_of("return jnp.dot(x, w)") and c["location"]["function"] == "matmul"
    assert data["collectives"]["by_kind"]["all-reduce"]["count"] == 1
    assert not [f for f in data["findings"] if f["code"] == "resharding"]
    assert "split over 8 devices" in text and "all-reduce" in text and "f32[64,4]" in text


def test_shard_map_psum_is_explicit_at_its_line(results):
    data, _ = results["total"]
    assert data["shard_layout"]["inputs"][0]["shard_shape"] == [8]
    (c,) = data["collectives"]["collectives"]
    assert (c["kind"], c["operand_type"], c["operand_bytes"], c["group_size"]) == ("all-reduce", "f32[]", 4, 8)
    assert c["origin"] == "explicit" and c["primitive"].startswith("psum")
    assert c["location"]["line"] == line_of('return jax.lax.psum(s, "x")')
    assert c["moved_bytes"] == 2 * 7 * 4 // 8


def test_sharding_constraint_is_named_as_resharding(results):
    data, text = results["constrained"]
    (c,) = data["collectives"]["collectives"]
    assert c["kind"] == "all-to-all" and c["origin"] == "resharding"
    assert c["operand_type"] == "8 x f32[2,1,2]" and c["operand_bytes"] == 128 and c["moved_bytes"] == 112
    constraint = line_of("with_sharding_constraint(y")
    assert [loc["line"] for loc in data["collectives"]["constraints"]] == [constraint]
    (finding,) = [f for f in data["findings"] if f["code"] == "resharding"]
    assert f"with_sharding_constraint at line {constraint}" in finding["message"]
    assert data["shard_layout"]["outputs"][0]["shard_shape"] == [16, 2]
    assert "resharding" in text


def test_jit_out_shardings_are_kept_and_their_reshard_found(results):
    data, _ = results["out_cols"]
    assert data["shard_layout"]["outputs"][0]["sharding"] == "NamedSharding(mesh=('x':8), spec=P(None, 'x'))"
    assert [c["origin"] for c in data["collectives"]["collectives"]] == ["resharding"]


def test_in_shardings_mismatch_names_the_argument(tmp_path):
    data, _ = inspect_json(tmp_path, "out_cols", "cols_args")
    (f,) = [f for f in data["findings"] if f["severity"] == "error"]
    assert f["code"] == "sharding-mismatch" and f["name"] == "x"
    assert f["details"]["argument_sharding"] == "NamedSharding(mesh=('x':8), spec=P(None, 'x'))"
    assert f["details"]["in_sharding"] == "NamedSharding(mesh=('x':8), spec=P('x', None))"


def test_replicated_and_single_device_programs_report_no_collectives(results):
    data, text = results["rowwise"]  # replicated over 8 devices: every device computes it all
    assert data["collectives"]["collectives"] == [] and data["collectives"]["moved_bytes"] == 0
    assert all(v["replicated"] for v in data["shard_layout"]["inputs"])
    assert "No collectives" in text
    assert not [f for f in data["findings"] if f["code"] == "resharding"]
    one, text = results["rowwise_one_device"]  # an uncommitted array: one device, no device section
    assert one["collectives"] is None and one["shard_layout"] is None and "devices" not in text.split("findings")[0]


def test_html_report_has_the_devices_section(results, tmp_path):
    out = tmp_path / "m.json"
    out.write_text(json.dumps(results["matmul"][0]))
    p = run_cli("report", str(out), "-o", str(tmp_path / "m.html"))
    assert p.returncode == 0, p.stderr
    html = (tmp_path / "m.html").read_text()
    assert "<h2" in html and "Devices" in html and "all-reduce" in html and "sharded_programs.py:" in html


def test_watch_names_sharding_and_committed_changes(tmp_path):
    out = tmp_path / "w.json"
    p = run_cli("watch", "--json", str(out), PROGRAM, env=EIGHT)
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    validate(data)
    reasons = [(e["reason"]["category"], e["reason"]["detail"]) for e in data["events"] if e["function"] == "step"]
    assert [c for c, _ in reasons] == ["first_compile"] + ["sharding_change"] * 4
    details = [d for _, d in reasons[1:]]
    assert details[0].startswith("x: uncommitted -> SingleDeviceSharding(cpu:0) (committed vs uncommitted")
    assert details[1] == ("x: SingleDeviceSharding(cpu:0) -> SingleDeviceSharding(cpu:1) "
                          "(device assignment changed: the array was moved to another device)")
    assert details[2] == "x: SingleDeviceSharding(cpu:1) -> NamedSharding(mesh=('x':8), spec=P('x', None))"
    assert details[3] == ("x: NamedSharding(mesh=('x':8), spec=P('x', None)) -> "
                          "NamedSharding(mesh=('x':8), spec=P(None, None))")
    assert "sharding_change" in p.stderr + p.stdout


# -- the HLO parser on XLA's spellings (text only) ---------------------------------------------------


@pytest.mark.parametrize(("attrs", "expected"), [
    ("replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%add", (4, 2)),
    ("replica_groups=[2,4]<=[8], to_apply=%add", (4, 2)),
    ("replica_groups=[2,4]<=[4,2]T(1,0)", (4, 2)),
    ("replica_groups=mesh['axis_0'=2,'axis_1'=4] {'axis_1'}, use_global_device_ids=true", (4, 2)),
    ("replica_groups=mesh['x'=2,'y'=4] {'x','y'}", (8, 1)),
    ("replica_groups={}, to_apply=%add", (8, 1)),
    ("source_target_pairs={{0,1},{1,2},{2,3},{3,0}}", (4, 1)),
])
def test_group_size_spellings(attrs, expected):
    assert group_size(attrs, 8) == expected


def test_moved_bytes_formulas_and_type_bytes():
    assert type_bytes("f32[64,16]{1,0}") == 4096 and type_bytes("(bf16[8], s32[2])") == 24
    assert type_bytes("token[]") == 0 and type_bytes("pred[3]") == 3
    assert moved_bytes("all-reduce", 800, 8) == 1400 and moved_bytes("all-gather", 100, 8) == 700
    assert moved_bytes("reduce-scatter", 800, 8) == 700 and moved_bytes("collective-permute", 64, 4) == 64
    assert moved_bytes("all-reduce", 800, 1) == 0


ASYNC_HLO = """HloModule jit_f, num_partitions=4

ENTRY %main (p: f32[128]) -> f32[512] {
  %p = f32[128]{0} parameter(0), sharding={devices=[4]<=[4]}, metadata={op_name="x"}
  %ags = (f32[128]{0}, f32[512]{0}) all-gather-start(%p), channel_id=1, replica_groups=[1,4]<=[4], dimensions={0}, \
metadata={op_name="jit(f)/dot_general" source_file="/u/model.py" source_line=12}
  ROOT %agd = f32[512]{0} all-gather-done(%ags), metadata={op_name="jit(f)/dot_general"}
}
"""


def test_async_start_done_counts_once_with_source_line():
    coll = collectives(ASYNC_HLO)
    (c,) = coll.collectives
    assert (c.kind, c.asynchronous, c.operand_bytes, c.group_size, c.moved_bytes) == ("all-gather", True, 512, 4,
                                                                                        1536)
    assert (c.location.file, c.location.line, c.origin) == ("/u/model.py", 12, "partitioner")
    assert coll.partitions == 4


def test_readme_multidevice_commands_run_as_written():
    import os
    import subprocess
    import sys

    text = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    (block,) = [p.split("```", 2)[1].strip("\n") for p in text.split("<!-- multidevice-commands -->")[1:]]
    assert block.startswith("export XLA_FLAGS=--xla_force_host_platform_device_count=8\n")
    bindir = os.path.dirname(sys.executable)  # `jitscope` of this environment
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "JAX_PLATFORMS": "cpu",
           "COLUMNS": "200"}  # wide tables: no cell cut short
    p = subprocess.run(["bash", "-e", "-c", block], cwd=Path(__file__).parent.parent, env=env, text=True,
                       capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = " ".join((p.stdout + p.stderr).split())
    assert "1 collective (1 all-reduce); each device sends about 7 KiB per call." in out
    assert "psum" in out and "you wrote it" in out
    assert "sharding_change x4" in out and "x: uncommitted -> SingleDeviceSharding(cpu:0)" in out
