"""HLO text analysis on real lowered/compiled programs (CPU backend)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

from jitscope.analyze.hlo import count_stablehlo, fusion_dot, hlo_stats, parse_hlo
from jitscope.collect.lowering import cost_dict, memory_dict


@pytest.fixture(scope="module")
def compiled():
    def f(a, b, c):
        return jnp.sin(a + b - c) @ c.T

    x = jnp.ones((8, 8))
    lowered = jax.jit(f).lower(x, x, x)
    return lowered, lowered.compile()


def test_parse_optimised_hlo_fusions(compiled):
    lowered, comp = compiled
    comps = parse_hlo(comp.as_text())
    entry = comps["__entry__"]
    fusions = [i for i in entry if i.opcode == "fusion"]
    assert fusions and all(i.calls in comps for i in fusions)
    params = [i for i in entry if i.opcode == "parameter"]
    assert len(params) == 3
    assert any(i.root for i in entry)
    assert all(op in {i.name for i in entry} for i in entry for op in i.operands)


def test_hlo_stats_counts_and_cost(compiled):
    lowered, comp = compiled
    st = hlo_stats(lowered.as_text(), lowered.as_text(dialect="hlo"), comp.as_text(), cost_dict(comp),
                   memory_dict(comp))
    assert st.stablehlo_by_op["stablehlo.add"] == 1 and st.stablehlo_by_op["stablehlo.dot_general"] == 1
    assert st.stablehlo_ops == 5  # add, subtract, sine, transpose, dot_general
    assert st.hlo_before_ops == 5
    assert st.fusion_count >= 1
    fused = {op for f in st.fusions for op in f.by_op}
    assert {"add", "subtract", "sine"} <= fused
    assert st.flops and st.flops >= 2 * 8 * 8 * 8  # the matmul alone
    assert st.transcendentals == 64
    assert st.memory["argument_size"] == 3 * 8 * 8 * 4


def test_fusion_dot_is_valid_looking(compiled):
    _, comp = compiled
    comps = parse_hlo(comp.as_text())
    dot = fusion_dot(comps, 'a "quoted" title')
    assert dot.startswith("digraph hlo {") and dot.rstrip().endswith("}")
    assert '\\"quoted\\"' in dot and "->" in dot
    fusions = [i for i in comps["__entry__"] if i.opcode == "fusion"]
    assert fusions and all(i.fusion_kind.startswith("k") for i in fusions)
    for ins in fusions:  # every fusion of the entry is a node labelled with its name and kind
        node = re.search(rf'^  "{re.escape(ins.name)}" \[shape=box .*label="([^"\n]*)"\];$', dot, re.M)
        assert node, ins.name
        assert node.group(1).startswith(f"{ins.name} ({ins.fusion_kind})")


def test_count_stablehlo_ignores_non_ops():
    text = """module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    %1 = "stablehlo.multiply"(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
#loc = loc(unknown)"""
    ops = count_stablehlo(text)
    assert ops == {"func.func": 1, "stablehlo.add": 1, "stablehlo.multiply": 1}


def test_frame_chains_read_the_stack_tables_in_both_parent_numberings():
    # one parser for the tables that inspect's line costs and the pessimisation detector both read
    from jitscope.analyze.hlo import frame_chains

    def module(parents):
        return "\n".join([
            "HloModule jit_f", "", "FileNames", '1 "/u/prog.py"', "", "FunctionNames", '1 "outer"', '2 "inner"', "",
            "FileLocations", "1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=4 end_column=9}",
            "2 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=2 end_column=7}", "",
            "StackFrames", f"1 {{file_location_id=1 parent_frame_id={parents[0]}}}",
            f"2 {{file_location_id=2 parent_frame_id={parents[1]}}}", "",
            "ENTRY %main (x: f32[3]) -> f32[3] {", "  ROOT %x = f32[3]{0} parameter(0)", "}"])

    want = {1: (("/u/prog.py", "outer", 10, 4),), 2: (("/u/prog.py", "inner", 3, 2), ("/u/prog.py", "outer", 10, 4))}
    assert frame_chains(module((0, 1))) == want  # root's parent 0, parents as ids
    assert frame_chains(module((1, 2))) == want  # JAX 0.10: every parent printed one higher
    assert frame_chains("HloModule m\nENTRY %main () -> f32[] {\n}\n") == {}
