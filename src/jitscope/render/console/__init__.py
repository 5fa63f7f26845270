"""Terminal renderers, one module per result kind: ``render/console/<kind>.py`` with
``render(result, console) -> None``. ``render(result)`` dispatches by ``result.kind``."""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

    from ...results import Result


def make_console(file: TextIO | None = None, width: int | None = None) -> Console:
    """A rich Console; plain (no colour codes) when not writing to a terminal."""
    import os

    from rich.console import Console

    file = file or sys.stdout
    if width is None and not os.environ.get("COLUMNS") and not (hasattr(file, "isatty") and file.isatty()):
        width = 120  # a log file or pipe: rich's 80-column default squeezes the tables unreadably
    return Console(file=file, width=width, highlight=False, soft_wrap=False)


def render(result: Result, console: Console | None = None) -> None:
    """Print ``result`` with the console renderer for its kind."""
    module: Any = importlib.import_module(f"{__name__}.{result.kind}")
    module.render(result, console or make_console())


def fmt_seconds(s: float | None) -> str:
    """Human time with a sensible unit: 1.23 s, 45.6 ms, 789 µs, 12.3 ns."""
    if s is None:
        return "-"
    if s == 0:
        return "0 s"
    a = abs(s)
    if a >= 1:
        return f"{s:.2f} s"
    if a >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if a >= 1e-6:
        return f"{s * 1e6:.3g} µs"
    return f"{s * 1e9:.3g} ns"


def fmt_bytes(n: float | None) -> str:
    """Human size in binary units: 512 B, 1.5 KiB, 3.81 MiB, 7.45 GiB (``-`` for None)."""
    if n is None:
        return "-"
    for unit, scale in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} B"
