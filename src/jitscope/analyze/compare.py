"""Pure arithmetic over measured variants: totals, break-even call counts, a recommendation.

Each variant is summarised by two numbers: its first call (trace + compile + run, from a
cold cache) and its steady per-call time (the median). Over a workload of ``n`` calls a
variant costs ``first + (n - 1) * steady``. Two variants cost the same at

    n* = 1 + (first_a - first_b) / (steady_b - steady_a)

calls; the variant with the lower steady time wins every workload longer than that. These
functions take plain numbers (or Timing records) and never run anything, so they are tested
on constructed records.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record


@dataclass(frozen=True)
class Costs:
    """The two numbers the workload model needs for one variant, in seconds."""

    name: str
    first: float
    steady: float
    steady_interval: tuple[float, float] | None = None  # 95% interval of the steady median (None: unknown)
    # Every cold first call, and the steady median of each interleaved round, in measurement order
    # (round r of every variant ran in the same pass): what ``apart`` pairs. Empty when not measured so.
    colds: tuple[float, ...] = ()
    rounds: tuple[float, ...] = ()

    @classmethod
    def of(cls, v: Any) -> Costs:
        """The costs of a measured variant (a ``VariantResult``: ``first_call``, ``steady``, ``steady_rounds``)."""
        return cls(v.name, v.first_call.median, v.steady.median, median_interval(v.steady.samples),
                   tuple(v.first_call.samples), tuple(getattr(v, "steady_rounds", None) or ()))


@dataclass
class BreakEven(Record):
    """How two variants trade first-call cost against per-call cost.

    ``faster`` has the lower steady per-call time, ``slower`` the higher. ``break_even_calls`` is
    the (fractional) workload length at which their totals are equal; ``faster_from_call`` is the
    first whole call count from which ``faster`` has the lower total. When ``faster`` also has
    the cheaper (or equal) first call it wins from call 1 and ``break_even_calls`` is None.
    When the steady times are equal the one with the cheaper first call always wins
    (``faster_from_call`` is 1 for it, ``break_even_calls`` None).
    """

    faster: str
    slower: str
    break_even_calls: float | None = None
    faster_from_call: int = 1
    first_call_penalty_s: float = 0.0  # first(faster) - first(slower); > 0 means faster pays up front
    per_call_saving_s: float = 0.0  # steady(slower) - steady(faster)


@dataclass
class Recommendation(Record):
    """The variant with the lowest total time for a workload of ``calls`` calls, and by how much.

    ``calls`` is None for a steady-state recommendation (an unbounded workload): then ``best``
    is the variant with the lowest per-call time. ``best_from_call``/``best_until_call`` bound
    the workload lengths over which ``best`` stays the best (``best_until_call`` None = forever).
    ``text`` is the sentence ``render.text.recommendation_text`` builds from these numbers, stored
    by the compare command for JSON readers (renderers phrase it again from the numbers).
    """

    best: str
    calls: int | None = None
    runner_up: str | None = None
    best_total_s: float | None = None
    runner_up_total_s: float | None = None
    saving_s: float | None = None
    ratio: float | None = None  # runner-up total / best total (per-call times when calls is None)
    best_from_call: int = 1
    best_until_call: int | None = None
    overtaken_by: str | None = None  # the variant that is cheaper from best_until_call + 1 on
    totals_s: dict[str, float] = field(default_factory=dict)
    text: str = ""
    # True when best and runner-up cannot be told apart: their totals' 95% intervals overlap.
    within_noise: bool = False
    best_interval_s: list[float] | None = None  # [low, high] of best_total_s
    runner_up_interval_s: list[float] | None = None


# A steady-state difference under 10% is not a reason to pick a jit strategy from one measurement:
# identical programs differ by a few percent from code placement and machine state alone.
MIN_EFFECT = 1.10


def median_interval(samples: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """A distribution-free interval for the median of ``samples`` (order statistics, normal approximation
    of the binomial): timings are skewed and heavy-tailed, so no mean or normality is assumed. With
    fewer than 6 samples it is the whole range."""
    xs = sorted(samples)
    n = len(xs)
    if n == 0:
        raise ValueError("no samples")
    if n < 6:
        return xs[0], xs[-1]
    z = 1.96 if confidence == 0.95 else statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half) - 1)
    hi = min(n - 1, math.ceil(n / 2 + half))
    return xs[lo], xs[hi]


# Cold first calls below this count per variant are too few for their range to mean much: a difference
# carried by the first calls must then also be FIRST_CALL_EFFECT or more (one cold call on a loaded
# machine can take three times as long as the next).
MIN_COLDS = 5
FIRST_CALL_EFFECT = 1.5
# The difference's interval must clear zero by this fraction of the smaller total on either side, not just
# clear zero: a difference that may be 1% is one that code placement and load make alone (issue #26.4).
NOISE_BAND = 0.03
# The largest ratio load has been seen to put between the round totals of identical programs (2.2x on a
# saturated machine, issue #26), with margin. A variant whose interval overlaps the other's only because
# some of its rounds stalled is still told apart when, round by round, the median ratio of the two is at
# least this AND at least the spread (high / low of its interval) of the steadier variant, i.e. more than
# load moved either program in this very run: stalls that widen one variant's interval cannot make most
# rounds differ by more than that.
LOAD_DISTORTION = 3.0


def round_totals(c: Costs, calls: int | None) -> list[float]:
    """The workload's total as each interleaved round measured it (shown beside a verdict): that
    round's steady median times ``calls - 1`` plus the median cold first call; steady only when
    ``calls`` is None."""
    if calls is None:
        return list(c.rounds)
    return [c.first + (calls - 1) * m for m in c.rounds]


def _interval(c: Costs, calls: int | None) -> tuple[float, float] | None:
    """The 95% interval of the median round total (distribution-free: of ten rounds, the second lowest to
    the second highest, so one round a load burst hit moves nothing; the whole range with five rounds or
    fewer); from the steady median's interval when measured in one pass."""
    totals = round_totals(c, calls)
    if totals:
        lo, hi = paired_median_interval(totals) or (min(totals), max(totals))
        if calls is not None and len(c.colds) > 1:
            lo, hi = lo - c.first + min(c.colds), hi - c.first + max(c.colds)
        return lo, hi
    if c.steady_interval is None:
        return None
    lo, hi = c.steady_interval
    return (lo, hi) if calls is None else (c.first + (calls - 1) * lo, c.first + (calls - 1) * hi)


def paired_median_interval(diffs: list[float], alpha: float = 0.05) -> tuple[float, float] | None:
    """A distribution-free interval for the median of paired differences (the sign test inverted):
    ``[d_(j), d_(k+1-j)]`` of the sorted differences, with the largest ``j`` whose two tails hold at
    most ``alpha`` together. None when ``k`` is too small for any (5 pairs or fewer at 95%). Ten
    rounds give ``[d_(2), d_(9)]``: one freak round (a load burst) on either side does not move it."""
    d = sorted(diffs)
    k = len(d)
    j, tail = 0, 0.0
    while j < k:
        tail += math.comb(k, j) / 2 ** k  # P(Bin(k, 1/2) <= j)
        if 2 * tail > alpha:
            break
        j += 1
    if j == 0:
        return None
    return d[j - 1], d[k - j]


def paired_difference(a: Costs, b: Costs, calls: int | None = None) -> float:
    """The median over rounds of ``total(a) - total(b)`` with round ``r`` of each paired (the steady part;
    the median cold first calls' difference added ``calls`` ahead); needs rounds of both."""
    k = min(len(a.rounds), len(b.rounds))
    steady = statistics.median(x - y for x, y in zip(a.rounds[:k], b.rounds[:k]))
    return steady if calls is None else (a.first - b.first) + (calls - 1) * steady


def _spread(interval: tuple[float, float]) -> float:
    lo, hi = interval
    return hi / lo if lo > 0 else math.inf


def paired_ratio(a: Costs, b: Costs, calls: int | None = None) -> float:
    """The median over rounds of slower / faster round total, rounds paired (1.0 without rounds of both).
    Direction-aware: rounds where the usual order flips count as ratios below 1, so a median of 3 means most
    rounds had the same variant 3x slower."""
    k = min(len(a.rounds), len(b.rounds))
    if not k:
        return 1.0
    ta, tb = round_totals(a, calls)[:k], round_totals(b, calls)[:k]
    if any(x <= 0 for x in ta + tb):
        return 1.0
    r = statistics.median(x / y for x, y in zip(ta, tb))
    return r if r >= 1 else 1 / r


def difference_interval(a: Costs, b: Costs, calls: int | None = None) -> tuple[float, float] | None:
    """An interval for ``total(a) - total(b)`` over ``calls`` calls (None: per call), or None when the
    measurements cannot bound it. The steady part comes from the rounds paired (round ``r`` of ``a``
    and of ``b`` ran back to back in the same pass, so load hits both); the first-call part from the
    range of each variant's cold calls (all of ``a``'s against all of ``b``'s)."""
    k = min(len(a.rounds), len(b.rounds))
    steady = paired_median_interval([x - y for x, y in zip(a.rounds[:k], b.rounds[:k])]) if k else None
    if steady is None:
        return None
    if calls is None:
        return steady
    ca, cb = a.colds or (a.first,), b.colds or (b.first,)
    first = (min(ca) - max(cb), max(ca) - min(cb))
    return first[0] + (calls - 1) * steady[0], first[1] + (calls - 1) * steady[1]


def apart(a: Costs, b: Costs, calls: int | None = None) -> bool:
    """Can ``a`` and ``b`` be told apart for a workload of ``calls`` calls (None: per call)?

    The one rule behind every "within noise" verdict of compare, its table and the demo's lessons
    (docs/compare.md, "Within noise"). They are apart when (1) their totals differ by ``MIN_EFFECT``
    (10%) or more (identical programs differ by a few percent from code placement alone), (2) the
    interval of their difference (``difference_interval``: steady rounds paired, which is robust to
    load in a way that an overlap of per-variant intervals is not) excludes zero, and (3) when the
    difference comes mostly from first calls and either has fewer than ``MIN_COLDS`` cold calls, the
    first calls differ by ``FIRST_CALL_EFFECT`` or more; and never while the 95% intervals of the two
    variants overlap (a loaded machine once paired identical eager code 2.2x apart), unless round by round
    the median ratio of their totals is ``LOAD_DISTORTION`` (3x) or more and more than the steadier
    variant's own spread (stalled rounds widened one variant's interval; load moved neither that much). With rounds, (1) and (2) are read on the rounds
    paired as well: the median of the per-round differences is ``MIN_EFFECT`` too (pooled medians weigh a
    fast round's many samples over a slow round's few, so load alone can move them 10% apart), and the
    interval clears not just zero but ``NOISE_BAND`` of the smaller total on either side. Without rounds
    (one pass, e.g. a result saved by an older jitscope) the interval overlap decides, and with no spread
    known at all (costs built by hand) the 10% effect decides alone.
    """
    ta, tb = (c.steady if calls is None else total_time(c.first, c.steady, calls) for c in (a, b))
    lo, hi = sorted((ta, tb))
    if lo <= 0 or hi / lo < MIN_EFFECT:
        return False
    ia, ib = _interval(a, calls), _interval(b, calls)
    if ia is not None and ib is not None and not (ia[1] < ib[0] or ib[1] < ia[0]) \
            and paired_ratio(a, b, calls) < max(LOAD_DISTORTION, min(_spread(ia), _spread(ib))):
        return False  # the per-variant intervals overlap: within noise, whatever the pairs say (issue #26)
    if not (a.rounds and b.rounds):
        return True  # no spread known (constructed costs): the effect size decided
    diff = difference_interval(a, b, calls)
    band = NOISE_BAND * lo
    if diff is None or diff[0] <= band and diff[1] >= -band:  # the interval does not clear the band
        return False
    if abs(paired_difference(a, b, calls)) < (MIN_EFFECT - 1) * lo:  # the effect is not in the pairs
        return False
    if calls is not None and min(len(a.colds), len(b.colds)) < MIN_COLDS:
        first_gap, steady_gap = abs(a.first - b.first), (calls - 1) * abs(a.steady - b.steady)
        f_lo, f_hi = sorted((a.first, b.first))
        if first_gap > steady_gap and (f_lo <= 0 or f_hi / f_lo < FIRST_CALL_EFFECT):
            return False
    return True


def total_time(first: float, steady: float, calls: int) -> float:
    """Seconds for ``calls`` calls: the first call, then ``calls - 1`` steady calls."""
    if calls < 1:
        raise ValueError(f"calls must be >= 1, got {calls}")
    return first + (calls - 1) * steady


def break_even(a: Costs, b: Costs) -> BreakEven:
    """Break-even between two variants (order does not matter)."""
    fast, slow = (a, b) if (a.steady, a.first) <= (b.steady, b.first) else (b, a)
    penalty = fast.first - slow.first
    saving = slow.steady - fast.steady
    if penalty <= 0 or saving <= 0:
        # The faster-per-call variant is no worse up front (or they tie per call and it is
        # cheaper up front, by the sort order): it wins from call 1.
        return BreakEven(fast.name, slow.name, None, 1, penalty, max(saving, 0.0))
    crossing = 1.0 + penalty / saving
    # Smallest whole n with total(fast, n) < total(slow, n), i.e. n - 1 > penalty / saving.
    from_call = math.floor(penalty / saving) + 2
    return BreakEven(fast.name, slow.name, crossing, from_call, penalty, saving)


def break_even_table(costs: list[Costs]) -> list[BreakEven]:
    """Break-even for every pair, in the order the variants were given."""
    return [break_even(a, b) for i, a in enumerate(costs) for b in costs[i + 1:]]


def _best_range(best: Costs, others: list[Costs]) -> tuple[int, int | None, str | None]:
    """Whole call counts [from, until] over which ``best`` has the lowest total of all, and the
    variant that overtakes it first (None if none does)."""
    lo, hi, by = 1, None, None
    for o in others:
        be = break_even(best, o)
        if be.faster == best.name:
            lo = max(lo, be.faster_from_call)
        elif be.break_even_calls is not None:
            # ``o`` is faster per call and overtakes ``best`` from be.faster_from_call on.
            until = be.faster_from_call - 1
            if hi is None or until < hi:
                hi, by = until, o.name
    return lo, hi, by


def recommend(costs: list[Costs], calls: int | None = None) -> Recommendation | None:
    """Pick the variant with the least total time for ``calls`` calls (None: per-call, steady state)."""
    if not costs:
        return None
    if calls is None:
        totals = {c.name: c.steady for c in costs}
    else:
        totals = {c.name: total_time(c.first, c.steady, calls) for c in costs}
    ranked = sorted(costs, key=lambda c: (totals[c.name], c.first))
    best = ranked[0]
    rec = Recommendation(best.name, calls, totals_s=totals, best_total_s=totals[best.name])
    rec.best_from_call, rec.best_until_call, rec.overtaken_by = _best_range(best, ranked[1:])
    if len(ranked) > 1:
        runner = ranked[1]
        rec.runner_up = runner.name
        rec.runner_up_total_s = totals[runner.name]
        rec.saving_s = totals[runner.name] - totals[best.name]
        rec.ratio = totals[runner.name] / totals[best.name] if totals[best.name] > 0 else None
        a, b = _interval(best, calls), _interval(runner, calls)
        if a is not None and b is not None:
            rec.best_interval_s, rec.runner_up_interval_s = list(a), list(b)
        rec.within_noise = not apart(best, runner, calls)
    return rec


def speedups(steady: Mapping[str, float], reference: str) -> dict[str, float]:
    """Reference steady time / each variant's steady time (> 1 means faster than the reference)."""
    ref = steady.get(reference)
    if not ref:
        return {}
    return {name: ref / t for name, t in steady.items() if t and t > 0}
