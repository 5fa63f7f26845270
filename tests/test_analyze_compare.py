"""Break-even and recommendation arithmetic on constructed numbers (no JAX needed)."""

from __future__ import annotations

import statistics

import pytest

from jitscope.analyze.compare import (
    LOAD_DISTORTION,
    BreakEven,
    Costs,
    Recommendation,
    apart,
    break_even,
    break_even_table,
    paired_ratio,
    recommend,
    speedups,
    total_time,
)
from jitscope.model import Timing
from jitscope.render.text import recommendation_text


def costs(name: str, first: list[float], steady: list[float]) -> Costs:
    """Costs from Timing records, as the engine builds them (medians)."""
    return Costs(name, Timing(first).median, Timing(steady).median)


def test_total_time():
    assert total_time(0.5, 0.005, 1) == 0.5
    assert total_time(0.5, 0.005, 101) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        total_time(1.0, 1.0, 0)


def test_break_even_seed_000_numbers():
    # Seed 000: jit(g) 0.5 s first then 0.005 s; no jit 0.3 s every call.
    jit_g = costs("jit(g)", [0.5], [0.005, 0.004, 0.006])
    eager = costs("eager", [0.3], [0.3, 0.31, 0.29])
    be = break_even(eager, jit_g)
    assert (be.faster, be.slower) == ("jit(g)", "eager")
    # totals equal at n = 1 + 0.2 / 0.295
    assert be.break_even_calls == pytest.approx(1 + 0.2 / 0.295)
    assert be.faster_from_call == 2
    assert total_time(0.5, 0.005, 2) < total_time(0.3, 0.3, 2)
    assert total_time(0.5, 0.005, 1) > total_time(0.3, 0.3, 1)
    assert be.first_call_penalty_s == pytest.approx(0.2)
    assert be.per_call_saving_s == pytest.approx(0.295)


@pytest.mark.parametrize("first_a,steady_a,first_b,steady_b", [
    (10.0, 1.0, 1.0, 2.0), (3.0, 0.5, 1.0, 1.5), (100.0, 0.1, 0.0, 0.2), (2.0, 1.0, 1.0, 1.5),
])
def test_faster_from_call_is_the_first_whole_call_count_that_wins(first_a, steady_a, first_b, steady_b):
    be = break_even(Costs("a", first_a, steady_a), Costs("b", first_b, steady_b))
    assert be.faster == "a"
    n = be.faster_from_call
    assert total_time(first_a, steady_a, n) < total_time(first_b, steady_b, n)
    assert total_time(first_a, steady_a, n - 1) >= total_time(first_b, steady_b, n - 1)
    assert n - 1 <= be.break_even_calls <= n


def test_dominating_variant_wins_from_call_one():
    be = break_even(Costs("slow", 2.0, 1.0), Costs("fast", 1.0, 0.5))
    assert be == BreakEven("fast", "slow", None, 1, -1.0, 0.5)


def test_equal_steady_cheaper_first_call_wins():
    be = break_even(Costs("a", 2.0, 1.0), Costs("b", 1.0, 1.0))
    assert be.faster == "b" and be.break_even_calls is None and be.faster_from_call == 1


def test_break_even_table_has_every_pair_once():
    cs = [Costs("a", 1, 1), Costs("b", 2, 0.5), Costs("c", 3, 0.1)]
    table = break_even_table(cs)
    assert len(table) == 3
    assert {frozenset((b.faster, b.slower)) for b in table} == {frozenset("ab"), frozenset("ac"), frozenset("bc")}


def test_recommend_short_workload_prefers_cheap_first_call():
    eager, jit = Costs("eager", 0.3, 0.3), Costs("jit", 0.5, 0.005)
    one = recommend([eager, jit], calls=1)
    assert one.best == "eager" and one.runner_up == "jit"
    assert one.best_until_call == 1 and one.overtaken_by == "jit"  # jit overtakes from call 2
    assert "beyond 1 call jit wins" in recommendation_text(one)
    assert one.saving_s == pytest.approx(0.2)
    assert "eager" in recommendation_text(one) and "1 call" in recommendation_text(one)
    many = recommend([eager, jit], calls=100)
    assert many.best == "jit"
    assert many.totals_s["jit"] == pytest.approx(0.5 + 99 * 0.005)
    assert many.ratio == pytest.approx(many.totals_s["eager"] / many.totals_s["jit"])
    assert many.best_from_call == 2 and many.best_until_call is None
    assert "from call 2" in recommendation_text(many)


def test_recommend_text_changes_with_numbers():
    a = recommendation_text(recommend([Costs("x", 1, 1), Costs("y", 5, 0.1)], calls=10))
    b = recommendation_text(recommend([Costs("x", 1, 0.01), Costs("y", 5, 0.1)], calls=10))
    assert a != b
    assert a.startswith("for 10 calls: use y") and b.startswith("for 10 calls: use x")


def test_recommend_steady_state():
    rec = recommend([Costs("eager", 0.01, 0.3), Costs("jit", 0.5, 0.1)])
    assert rec.calls is None and rec.best == "jit"
    assert rec.ratio == pytest.approx(3.0)
    assert rec.best_from_call == 4  # 0.5 + (n-1)0.1 < 0.01 + (n-1)0.3  <=>  n - 1 > 2.45
    assert "steady state" in recommendation_text(rec) and "3x" in recommendation_text(rec)


def test_recommend_single_and_empty():
    assert recommend([]) is None
    only = recommend([Costs("a", 1, 1)], calls=3)
    assert only.best == "a" and only.runner_up is None and "only a" in recommendation_text(only)


def test_records_round_trip():
    rec = recommend([Costs("a", 1, 1), Costs("b", 2, 0.5)], calls=5)
    assert Recommendation.from_dict(rec.to_dict()) == rec
    be = break_even(Costs("a", 1, 1), Costs("b", 2, 0.5))
    assert BreakEven.from_dict(be.to_dict()) == be


def test_speedups():
    assert speedups({"eager": 1.0, "jit": 0.25}, "eager") == {"eager": 1.0, "jit": 4.0}
    assert speedups({"jit": 0.25}, "eager") == {}


def test_recommendation_text_uses_fmt_seconds():
    from jitscope.render.console import fmt_seconds

    rec = recommend([Costs("a", 2e-7, 1e-7), Costs("b", 3e-7, 5e-7)])
    # sub-microsecond times print in ns, as everywhere else (the old private formatter said "0.1 µs")
    assert f"({fmt_seconds(1e-7)})" in recommendation_text(rec) and "100 ns" in recommendation_text(rec)


def test_median_interval_is_distribution_free():
    from jitscope.analyze.compare import median_interval

    assert median_interval([3.0, 1.0, 2.0]) == (1.0, 3.0)  # few samples: the whole range
    xs = [float(i) for i in range(1, 101)]
    lo, hi = median_interval(xs)
    assert 38 <= lo <= 45 and 56 <= hi <= 62  # ~95% order-statistic interval around 50.5


def test_overlapping_or_small_differences_are_within_noise():
    a = Costs("a", 1.0, 1.00e-3, (0.95e-3, 1.06e-3))
    b = Costs("b", 1.0, 1.30e-3, (1.05e-3, 1.40e-3))  # 30% apart, but the intervals overlap
    rec = recommend([a, b])
    assert rec.within_noise and "within noise per call" in recommendation_text(rec)
    close = recommend([Costs("a", 1.0, 1.00e-3, (0.99e-3, 1.01e-3)), Costs("b", 1.0, 1.05e-3, (1.04e-3, 1.06e-3))])
    assert close.within_noise  # separated, but a 5% difference is not a verdict
    apart = recommend([Costs("a", 1.0, 1.0e-3, (0.9e-3, 1.1e-3)), Costs("b", 1.0, 2.0e-3, (1.8e-3, 2.2e-3))])
    assert not apart.within_noise and "a is fastest per call" in recommendation_text(apart)
    workload = recommend([a, b], calls=1000)  # totals carry the steady intervals, scaled by the calls
    assert workload.within_noise and workload.best_interval_s[0] == pytest.approx(1.0 + 999 * 0.95e-3)


def _rounds(name, first, rounds, colds=()):
    import statistics

    return Costs(name, first, statistics.median(rounds), None, tuple(colds) or (first,), tuple(rounds))


def test_paired_interval_ignores_one_freak_round_each_side():
    from jitscope.analyze.compare import paired_median_interval

    d = [1.0] * 8 + [-50.0, 80.0]  # one load burst either way
    assert paired_median_interval(d) == (1.0, 1.0)
    assert paired_median_interval([1.0] * 5) is None  # five pairs bound nothing at 95%
    assert paired_median_interval([float(i) for i in range(6)]) == (0.0, 5.0)  # six: the whole range


def test_apart_pairs_rounds_so_shared_load_cancels():
    # jit is 4x faster than eager in every round; load moves both between rounds. While the per-variant
    # intervals stay apart the pairs decide; once load swings them into overlap (5x), the verdict is "within
    # noise" whatever the pairs say (issue #26: a loaded machine once paired identical eager code 2.2x apart)
    steady = [1, 1.4, 1, 1.2, 1.5, 1, 1.2, 1, 1.3, 1.2]
    eager = _rounds("eager", 0.5, [100e-6 * x for x in steady])
    jit = _rounds("jit", 0.2, [25e-6 * x for x in steady])
    assert apart(eager, jit) and not recommend([eager, jit]).within_noise
    load = [1, 5, 1, 2, 5, 1, 2, 1, 5, 2]
    eager = _rounds("eager", 0.5, [100e-6 * x for x in load])
    jit = _rounds("jit", 0.2, [25e-6 * x for x in load])
    assert min(eager.rounds) < max(jit.rounds)
    assert not apart(eager, jit) and recommend([eager, jit]).within_noise
    # identical code whose rounds disagree at random: within noise however far apart the medians drift
    a = _rounds("a", 0.5, [100e-6, 140e-6, 100e-6, 90e-6, 150e-6, 100e-6, 80e-6, 130e-6, 100e-6, 120e-6])
    b = _rounds("b", 0.5, [130e-6, 100e-6, 95e-6, 140e-6, 100e-6, 120e-6, 100e-6, 90e-6, 150e-6, 100e-6])
    assert not apart(a, b) and recommend([a, b]).within_noise


def test_apart_first_calls_need_disjoint_colds_and_enough_of_them():
    steady = [1e-4] * 10
    same = [_rounds(n, 0.3, steady, colds) for n, colds in (("a", (0.2, 0.3, 0.5, 0.3, 0.25)),
                                                           ("b", (0.28, 0.4, 0.3, 0.22, 0.6)))]
    assert recommend(same, calls=1).within_noise
    fast = _rounds("jit", 0.1, steady, (0.1, 0.11, 0.09, 0.1, 0.12))
    slow = _rounds("eager", 0.5, steady, (0.5, 0.45, 0.6, 0.55, 0.5))
    assert apart(fast, slow, calls=1)
    # one cold call each (an expensive compile): 1.3x on first calls is not a verdict, 3x is
    assert not apart(_rounds("a", 13.0, steady), _rounds("b", 10.0, steady), calls=1)
    assert apart(_rounds("a", 30.0, steady), _rounds("b", 10.0, steady), calls=1)


def test_the_effect_must_show_in_the_paired_rounds_not_only_in_the_pooled_medians():
    """Pooled steady medians weigh a fast round's many samples over a slow round's few: load that hit one
    variant's rounds moves them 15% apart while round by round the two differ by 1-3% (issue #26.4)."""
    a_rounds = [101e-6, 102e-6, 101e-6, 103e-6, 102e-6, 101e-6, 102e-6, 101e-6, 150e-6, 160e-6]
    a = Costs("a", 0.5, 115e-6, None, (0.5,), tuple(a_rounds))
    b = Costs("b", 0.5, 100e-6, None, (0.5,), (100e-6,) * 10)
    assert not apart(a, b) and recommend([a, b]).within_noise
    assert not apart(a, b, calls=100)


def test_the_interval_must_clear_a_band_around_zero_not_only_zero():
    # 12% slower in eight rounds, 1% and 2% in two: the difference may be 1%, which load makes alone
    base = [100e-6] * 10
    slower = [112e-6] * 8 + [101e-6, 102e-6]
    assert not apart(_rounds("a", 0.5, slower), _rounds("b", 0.5, base))
    # 20% slower in every round but two (15%, 30%): told apart, the band is well cleared
    assert apart(_rounds("a", 0.5, [120e-6] * 8 + [115e-6, 130e-6]), _rounds("b", 0.5, base))


def test_stalled_rounds_of_the_fast_variant_do_not_hide_a_40x_difference():
    # Measured under load (session 33): a few rounds stalled (load hits both variants of a round, which ran
    # back to back), so jit's interval of the median round reached eager's, yet in most rounds eager was ~44x
    # slower and load moved eager's rounds far less than that.
    jit_rounds = (26e-6, 27e-6, 3.9e-3, 28e-6, 2.5e-3, 26e-6, 29e-6, 3.97e-3, 27e-6, 28e-6)
    eager_rounds = (1.2e-3, 1.25e-3, 5.3e-3, 1.2e-3, 4.4e-3, 1.22e-3, 1.3e-3, 5.9e-3, 1.21e-3, 1.24e-3)
    jit = Costs("jit", 0.05, statistics.median(jit_rounds), rounds=jit_rounds)
    eager = Costs("eager", 0.002, statistics.median(eager_rounds), rounds=eager_rounds)
    assert apart(jit, eager)  # before LOAD_DISTORTION: False (the per-variant intervals overlap)
    assert paired_ratio(jit, eager) > 40


def test_a_consistent_2x_split_of_overlapping_variants_stays_within_noise():
    # The issue #26 case: identical code paired ~2.2x apart round by round while the intervals overlapped.
    a_rounds = (1.0e-3, 2.3e-3, 1.1e-3, 2.2e-3, 1.0e-3, 2.4e-3, 1.05e-3, 2.3e-3, 1.1e-3, 2.2e-3)
    b_rounds = tuple(x * 2.2 for x in a_rounds)
    a = Costs("a", 0.002, statistics.median(a_rounds), rounds=a_rounds)
    b = Costs("b", 0.002, statistics.median(b_rounds), rounds=b_rounds)
    assert paired_ratio(a, b) < LOAD_DISTORTION
    assert not apart(a, b)
