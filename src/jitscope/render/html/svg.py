"""Tiny dependency-free SVG charts for the self-contained HTML report.

Plain strings in, an ``<svg>`` element out: horizontal bar charts for comparing
variants and log-log line charts for growth with problem size. No JavaScript, no
external fonts or files, so a report opens anywhere, offline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ("#3b6fd4", "#e0683a", "#2f9e6b", "#b0459b", "#c9a227", "#5a6b7d", "#d0455b", "#1b9aaa")


def _fmt(v: float, unit: str) -> str:
    if unit == "s":
        from ..._format import fmt_seconds

        return fmt_seconds(v)
    if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-2):
        return f"{v:.3g}{' ' + unit if unit else ''}"
    return f"{v:,.4g}{' ' + unit if unit else ''}"


def bar_chart(labels: Sequence[str], values: Sequence[float | None], *, unit: str = "s", title: str = "",
              log: bool = False, width: int = 640) -> str:
    """Horizontal bars, one per label; ``None`` values are drawn as 'n/a'."""
    row_h, label_w, pad = 26, min(260, 16 + 8 * max((len(s) for s in labels), default=4)), 8
    height = pad * 2 + row_h * len(labels) + (22 if title else 0)
    top = pad + (22 if title else 0)
    present = [v for v in values if v is not None and v > 0]
    vmax = max(present, default=1.0)
    vmin = min(present, default=1.0)
    plot_w = width - label_w - 110

    def length(v: float) -> float:
        if log and vmax > vmin:
            lo = math.log10(vmin) - 0.3
            return plot_w * (math.log10(v) - lo) / (math.log10(vmax) - lo)
        return plot_w * v / vmax

    parts = [f'<svg class="chart" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">']
    if title:
        parts.append(f'<text x="{pad}" y="{pad + 12}" class="chart-title">{escape(title)}</text>')
    for i, (label, v) in enumerate(zip(labels, values)):
        y = top + i * row_h
        parts.append(f'<text x="{label_w - 6}" y="{y + 17}" text-anchor="end" class="chart-label">{escape(label)}</text>')
        if v is None or v <= 0:
            parts.append(f'<text x="{label_w + 4}" y="{y + 17}" class="chart-value">n/a</text>')
            continue
        w = max(1.0, length(v))
        color = PALETTE[i % len(PALETTE)]
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{row_h - 8}" fill="{color}" rx="2">'
                     f'<title>{escape(label)}: {escape(_fmt(v, unit))}</title></rect>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 17}" class="chart-value">{escape(_fmt(v, unit))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _positive(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def _ticks(lo: float, hi: float) -> list[float]:
    # Decades, at most about a dozen, and inside float range (a hand-edited file may hold 1e308).
    a, b = max(math.floor(lo), -300), min(math.ceil(hi), 300)
    step = max(1, math.ceil((b - a + 1) / 12))
    return [10.0**k for k in range(a, b + 1, step)]


def loglog_chart(series: dict[str, Sequence[tuple[float, float]]], *, xlabel: str = "", ylabel: str = "",
                 title: str = "", width: int = 640, height: int = 360) -> str:
    """Lines with markers on log-log axes; one entry of ``series`` per line. Non-positive points are dropped."""
    clean = {name: [(x, y) for x, y in pts if _positive(x) and _positive(y)] for name, pts in series.items()}
    pts_all = [p for pts in clean.values() for p in pts]
    left, right, top, bottom = 70, 210, 30 if title else 12, 46
    pw, ph = width - left - right, height - top - bottom
    parts = [f'<svg class="chart" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">']
    if title:
        parts.append(f'<text x="{left}" y="18" class="chart-title">{escape(title)}</text>')
    if not pts_all:
        parts.append(f'<text x="{left}" y="{top + 20}" class="chart-value">no data</text></svg>')
        return "".join(parts)
    lx = [math.log10(x) for x, _ in pts_all]
    ly = [math.log10(y) for _, y in pts_all]
    x0, x1 = min(lx), max(lx)
    y0, y1 = min(ly), max(ly)
    if x1 - x0 < 1e-9:
        x0, x1 = x0 - 0.5, x1 + 0.5
    if y1 - y0 < 1e-9:
        y0, y1 = y0 - 0.5, y1 + 0.5
    y0, y1 = y0 - 0.05 * (y1 - y0), y1 + 0.05 * (y1 - y0)

    def px(x: float) -> float:
        return left + pw * (math.log10(x) - x0) / (x1 - x0)

    def py(y: float) -> float:
        return top + ph - ph * (math.log10(y) - y0) / (y1 - y0)

    parts.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" class="chart-frame"/>')
    for t in _ticks(y0, y1):
        if y0 <= math.log10(t) <= y1:
            parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" class="chart-grid"/>'
                         f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end" class="chart-tick">{t:g}</text>')
    xs = sorted({x for x, _ in pts_all})
    for x in xs if len(xs) <= 8 else [t for t in _ticks(x0, x1) if x0 <= math.log10(t) <= x1]:
        parts.append(f'<text x="{px(x):.1f}" y="{top + ph + 16}" text-anchor="middle" class="chart-tick">{x:g}</text>')
    parts.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle" class="chart-label">{escape(xlabel)}</text>')
    parts.append(f'<text x="14" y="{top + ph / 2}" text-anchor="middle" class="chart-label" '
                 f'transform="rotate(-90 14 {top + ph / 2})">{escape(ylabel)}</text>')
    for i, (name, pts) in enumerate(clean.items()):
        if not pts:
            continue
        color = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{'M' if j == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for j, (x, y) in enumerate(sorted(pts)))
        parts.append(f'<path d="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, y in pts:
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{color}">'
                         f'<title>{escape(name)}: x={x:g}, y={y:.4g}</title></circle>')
        ly_ = top + 10 + 18 * i
        parts.append(f'<rect x="{left + pw + 12}" y="{ly_ - 8}" width="12" height="4" fill="{color}"/>'
                     f'<text x="{left + pw + 30}" y="{ly_}" class="chart-label">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def timeline(rows: Sequence[str], spans: Sequence[tuple[int, float, float, str]], *, total: float,
             title: str = "", width: int = 900) -> str:
    """Spans on a time axis, one lane per row: ``(row_index, start_s, duration_s, tooltip)``."""
    row_h, label_w, pad = 22, min(220, 16 + 8 * max((len(r) for r in rows), default=4)), 8
    top = pad + (22 if title else 0)
    height = top + row_h * len(rows) + 30
    plot_w = width - label_w - 20
    total = max(total, max((s + d for _, s, d, _ in spans), default=0.0), 1e-9)
    parts = [f'<svg class="chart" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">']
    if title:
        parts.append(f'<text x="{pad}" y="{pad + 12}" class="chart-title">{escape(title)}</text>')
    for i, name in enumerate(rows):
        y = top + i * row_h
        parts.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" class="chart-label">{escape(name)}</text>'
                     f'<line x1="{label_w}" x2="{label_w + plot_w}" y1="{y + row_h - 1}" y2="{y + row_h - 1}" '
                     f'class="chart-grid"/>')
    for row, start, dur, tip in spans:
        x = label_w + plot_w * start / total
        w = max(2.0, plot_w * dur / total)
        y = top + row * row_h
        parts.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}" '
                     f'fill="{PALETTE[row % len(PALETTE)]}" opacity="0.85"><title>{escape(tip)}</title></rect>')
    axis_y = top + row_h * len(rows) + 14
    for k in range(6):
        t = total * k / 5
        parts.append(f'<text x="{label_w + plot_w * k / 5:.1f}" y="{axis_y}" text-anchor="middle" '
                     f'class="chart-tick">{escape(_fmt(t, "s"))}</text>')
    parts.append("</svg>")
    return "".join(parts)
