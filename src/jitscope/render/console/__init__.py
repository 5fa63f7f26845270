"""Terminal renderers, one module per result kind: ``render/console/<kind>.py`` with
``render(result, console) -> None``. ``render(result)`` dispatches by ``result.kind``."""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..._format import fmt_bytes as fmt_bytes
from ..._format import fmt_seconds as fmt_seconds

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
