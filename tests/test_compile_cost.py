"""JW402's model (analyze/compile_cost.py): big enough, slow for its size, a cause shown or nothing.

The model is arithmetic over what watch measured (equations, CPU seconds); the real-JAX side (CPU time
recorded per compile, the same findings idle and under load) is in tests/test_watch_findings.py."""

from __future__ import annotations

from jitscope.analyze.compile_cost import (
    MIN_EQUATIONS,
    UPPER_SECONDS_PER_EQUATION,
    CompileCostModel,
    ProgramSize,
)


def test_small_programs_and_cheap_compiles_are_never_slow():
    m = CompileCostModel()
    assert m.verdict(ProgramSize(MIN_EQUATIONS - 1), 1000.0, 1.0) is None  # under 200 equations: never
    assert m.verdict(ProgramSize(5000, unrolled_equations=5000, unrolled_lines=[3]), 0.9, 1.0) is None
    assert m.verdict(ProgramSize(5000), None, 1.0) is None  # no CPU time measured: no verdict


def test_a_big_program_inside_the_band_with_no_cause_is_quiet():
    m = CompileCostModel()
    n = 1000
    assert m.verdict(ProgramSize(n), n * UPPER_SECONDS_PER_EQUATION, 1.0) is None  # big, but as big programs are


def test_unrolled_code_is_the_cause_when_it_holds_most_of_the_program():
    m = CompileCostModel()
    v = m.verdict(ProgramSize(1000, unrolled_equations=900, unrolled_lines=[14]), 2.0, 1.0)
    assert v is not None and v.cause == "unrolled" and v.share == 0.9 and v.confidence == "likely"
    assert "900 of the equations (90%)" in v.evidence and "line 14" in v.evidence
    assert m.verdict(ProgramSize(1000, unrolled_equations=400, unrolled_lines=[14]), 2.0, 1.0) is None


def test_large_constants_are_the_cause_only_when_they_account_for_the_time():
    m = CompileCostModel()
    v = m.verdict(ProgramSize(300, constant_bytes=400_000_000), 3.0, 1.0)
    assert v is not None and v.cause == "constants" and "400 MB of constants" in v.evidence
    assert m.verdict(ProgramSize(300, constant_bytes=4_000_000), 3.0, 1.0) is None  # 4 MB: not the cause


def test_slow_for_its_size_is_calibrated_on_the_runs_own_compiles():
    n = 300
    slow = 4 * UPPER_SECONDS_PER_EQUATION * n
    v = CompileCostModel().verdict(ProgramSize(n), slow, 1.0)
    assert v is not None and v.cause == "slow_for_size" and v.speed == 1.0
    # A machine that compiles everything 10x slower than the reference: the band moves with it.
    m = CompileCostModel()
    for _ in range(10):
        m.observe(100, 100 * 0.003)  # 3 ms per equation for the run's cheap programs (reference 0.3)
    assert abs(m.speed - 10.0) < 1e-9
    assert m.verdict(ProgramSize(n), slow, 1.0) is None


def test_xla_pass_times_name_the_cause_of_a_compile_slow_for_its_size():
    from jitscope.analyze.runtime_record import RuntimeFinding
    from jitscope.analyze.slow_compile import _CAUSES, name_slow_passes

    slow = RuntimeFinding("JW402", "f", f"compile #3 of f: ...; cause: {_CAUSES['slow_for_size']}", compile_index=3,
                          details={"cause": "slow_for_size"}, evidence="measured")
    quiet = RuntimeFinding("JW402", "f", f"compile #3 of f: ...; cause: {_CAUSES['slow_for_size']}", compile_index=4,
                           details={"cause": "slow_for_size"}, evidence="measured")
    passes = {3: {"passes": [{"name": "algsimp", "share": 0.1}, {"name": "fusion", "share": 0.62}]},
              4: {"passes": [{"name": "algsimp", "share": 0.2}, {"name": "fusion", "share": 0.25}]}}
    name_slow_passes([slow, quiet], passes.get)
    assert slow.message.endswith("cause: XLA's fusion pass took 62% of it") and slow.details["pass"] == "fusion"
    assert "fusion 62%" in slow.evidence
    assert quiet.details.get("pass") is None and "not known" in quiet.message  # no pass stands out: still unknown
