"""Growth exponents: how a cost grows with problem size, from a log-log least-squares fit.

``fit_growth(sizes, values)`` fits ``value = c * n**k`` by least squares on ``log value`` vs
``log n`` and returns ``k`` (the exponent), ``c``, the coefficient of determination ``r2``
and a word for the growth. Exponent bands (documented in docs/scale.md):

=============  ===============
``k < 0.25``   ``flat``
``k < 0.8``    ``sublinear``
``k <= 1.2``   ``linear``
``k > 1.2``    ``superlinear``
=============  ===============

Each exponent comes with a 95% interval (Student's t on the fit's residuals, from three points on):
``settled`` says whether the whole interval lies in one band. A fit whose interval spans two bands
names both (``growth_range``), so two identical runs never disagree about a class they could not tell
apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._serde import Record

FLAT, SUBLINEAR_MAX, LINEAR_MAX = 0.25, 0.8, 1.2


@dataclass
class GrowthFit(Record):
    """``value ~= coefficient * n**exponent`` over the measured sizes."""

    metric: str
    exponent: float | None = None
    coefficient: float | None = None
    r2: float | None = None
    growth: str = "unknown"  # flat | sublinear | linear | superlinear | unknown
    points: int = 0
    exponent_low: float | None = None  # 95% interval of the exponent (None with fewer than 3 points)
    exponent_high: float | None = None
    settled: bool | None = None  # the interval lies in one growth band (None without an interval)

    @property
    def growth_range(self) -> str:
        """The band, or the bands the interval spans ("sublinear to linear") when it is not settled."""
        if self.settled is not False or self.exponent_low is None or self.exponent_high is None:
            return self.growth
        low, high = growth_word(self.exponent_low), growth_word(self.exponent_high)
        return low if low == high else f"{low} to {high}"

    def predict(self, n: float) -> float | None:
        """The fitted value at size ``n`` (None without a fit)."""
        if self.exponent is None or self.coefficient is None:
            return None
        return self.coefficient * n ** self.exponent


def growth_word(exponent: float | None) -> str:
    """The band an exponent falls in."""
    if exponent is None or not math.isfinite(exponent):
        return "unknown"
    if exponent < FLAT:
        return "flat"
    if exponent < SUBLINEAR_MAX:
        return "sublinear"
    if exponent <= LINEAR_MAX:
        return "linear"
    return "superlinear"


# Two-sided 97.5% quantiles of Student's t by degrees of freedom (1-10), 1.96 beyond.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (for a 95% interval)."""
    if df < 1:
        raise ValueError("df must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    return 1.96 + 2.4 / df  # within 1% of the exact value from df 11 on


def fit_growth(metric: str, sizes: list[float], values: list[float | None]) -> GrowthFit:
    """Least-squares fit of ``log(value) = log(c) + k log(n)`` over points with positive values."""
    pts = [(float(n), float(v)) for n, v in zip(sizes, values, strict=False)
           if v is not None and v > 0 and n > 0 and math.isfinite(v)]
    fit = GrowthFit(metric, points=len(pts))
    if len({n for n, _ in pts}) < 2:
        return fit
    xs = [math.log(n) for n, _ in pts]
    ys = [math.log(v) for _, v in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    k = sxy / sxx
    b = my - k * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (b + k * x)) ** 2 for x, y in zip(xs, ys, strict=True))
    fit.exponent = k
    fit.coefficient = math.exp(b)
    fit.r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    fit.growth = growth_word(k)
    df = len(pts) - 2
    if df >= 1:
        half = t_quantile(df) * math.sqrt(ss_res / df / sxx)
        fit.exponent_low, fit.exponent_high = k - half, k + half
        fit.settled = growth_word(k - half) == growth_word(k + half)
    return fit
