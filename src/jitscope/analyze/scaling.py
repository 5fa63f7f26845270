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
    return fit
