"""Terminal renderers, one module per result kind: ``render/console/<kind>.py`` with
``render(result, console) -> None`` drawing on a rich Console. This package turns that into the
one renderer contract: ``render(result) -> str`` (plain text, or ANSI colours with ``color``),
and ``show(result, file)`` for a live terminal stream."""

from __future__ import annotations

import importlib
import sys

from ..._format import fmt_bytes as fmt_bytes
from ..._format import fmt_seconds as fmt_seconds

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any, TextIO

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


def render(result: Result, *, width: int | None = None, color: bool = False, snippet: bool = True) -> str:
    """The terminal report of ``result`` as text (120 columns unless ``width``)."""
    if result.kind == "lint":
        from .lint import format_text

        return format_text(result, snippet=snippet, color=color)  # type: ignore[arg-type]
    import io

    from rich.console import Console

    buf = io.StringIO()
    draw(result, Console(file=buf, width=width or 120, highlight=False, soft_wrap=False,
                         force_terminal=color, color_system="standard" if color else None))
    return buf.getvalue()


def show(result: Result, file: TextIO | None = None) -> None:
    """Print the report of ``result`` on a terminal stream (rich: colours on a tty)."""
    draw(result, make_console(file=file))


def draw(result: Result, console: Console) -> None:
    """Draw ``result`` on a rich ``console`` with the renderer for its kind."""
    module: Any = importlib.import_module(f"{__name__}.{result.kind}")
    module.render(result, console)
