"""Log-log plots of ``scale`` results, written as PNG and SVG with matplotlib's Agg backend.

matplotlib is optional (the ``plot`` extra); without it ``plot_scale`` raises a ``UsageError``
with a one-line install hint.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..results.scale import ScaleResult

_TIME_METRICS = ("trace", "lower", "compile", "run")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'jitscope[plot]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_scale(result: ScaleResult, prefix: str | Path) -> list[str]:
    """Write ``PREFIX.png`` and ``PREFIX.svg``: seconds per phase and jaxpr equations vs n, log-log."""
    plt = _pyplot()
    ok = [p for p in result.points if not p.error]
    ns = [p.n for p in ok]
    fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(11, 4.2))
    for metric in _TIME_METRICS:
        ys = [p.seconds(metric) if metric != "run" else (p.timings["run"].median if "run" in p.timings else None)
              for p in ok]
        pts = [(n, y) for n, y in zip(ns, ys, strict=True) if y]
        if not pts:
            continue
        fit = result.fits.get(metric)
        label = metric + (f" (k={fit.exponent:.2f})" if fit and fit.exponent is not None else "")
        ax_t.plot([n for n, _ in pts], [y for _, y in pts], marker="o", label=label)
    ax_t.set(xscale="log", yscale="log", xlabel="n", ylabel="seconds", title="time per phase")
    ax_t.legend(fontsize=8)
    ax_t.grid(True, which="both", alpha=0.3)
    eq = [(p.n, p.equations) for p in ok if p.equations]
    if eq:
        fit = result.fits.get("equations")
        label = "jaxpr equations" + (f" (k={fit.exponent:.2f})" if fit and fit.exponent is not None else "")
        ax_e.plot([n for n, _ in eq], [e for _, e in eq], marker="s", color="tab:purple", label=label)
        ax_e.legend(fontsize=8)
    ax_e.set(xscale="log", yscale="log", xlabel="n", ylabel="equations", title="program size")
    ax_e.grid(True, which="both", alpha=0.3)
    for ax in (ax_t, ax_e):  # label the measured sizes plainly instead of 6x10^1
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns])
        ax.minorticks_off()
    fig.suptitle(f"jitscope scale: {result.target}", fontsize=10)
    fig.tight_layout()
    base = Path(prefix)
    if base.parent and not base.parent.exists():
        base.parent.mkdir(parents=True, exist_ok=True)
    files = []
    for ext in ("png", "svg"):
        path = base.with_name(base.name + f".{ext}")
        fig.savefig(path, format=ext, dpi=110 if ext == "png" else None)
        files.append(str(path))
    plt.close(fig)
    return files
