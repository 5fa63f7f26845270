"""Renderers: one per output format, one contract, the format chosen in one place.

Every renderer is ``render(result) -> str`` in its own module (``console/``, ``html/``,
``json.py``, ``sarif.py``); this package's ``render(result, fmt)`` dispatches to them and is
what every command, ``jitscope report`` and the integrations call. ``format_for_path`` picks
the format from an output file's suffix. Two outputs are not formats of a result and stay
outside this contract: ``trace.py`` (a watch run as a Perfetto timeline, ``--trace``) and
``plot.py`` (a scale result as PNG/SVG image files, ``--plot``).
"""

from __future__ import annotations

import os
import sys

from ..errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import TextIO

    from ..results import Result


FORMATS = ("console", "html", "json", "sarif")
SUFFIXES = {".html": "html", ".htm": "html", ".json": "json", ".sarif": "sarif"}
_SARIF_KINDS = ("lint",)  # SARIF describes static-analysis findings against rules: lint's


def format_for_path(path: str | os.PathLike[str] | None, default: str = "console") -> str:
    """The format an output path asks for by its suffix (``.html``, ``.json``, ``.sarif``), else ``default``."""
    if not path:
        return default
    return SUFFIXES.get(os.path.splitext(os.fspath(path))[1].lower(), default)


def check_format(kind: str, fmt: str) -> None:
    """Refuse, in one line, a format this result kind cannot be rendered in (before any work is done)."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format '{fmt}' (choose from {', '.join(FORMATS)})")
    if fmt == "sarif" and kind not in _SARIF_KINDS:
        raise UsageError(f"SARIF is for lint results; a '{kind}' result renders as console, html or json")


def render(result: Result, fmt: str = "console", *, width: int | None = None, color: bool = False,
           snippet: bool = True) -> str:
    """``result`` as text in ``fmt``: ``console`` (plain text, or ANSI colours with ``color``),
    ``html`` (one self-contained page), ``json`` (the versioned schema) or ``sarif`` (lint).
    ``snippet``: lint's console text shows each finding's source lines.

    Raises:
        UsageError: a format this kind has no renderer for (see ``check_format``).
    """
    check_format(result.kind, fmt)
    if fmt == "html":
        from . import html

        return html.render(result)
    if fmt == "json":
        from . import json

        return json.render(result) + "\n"
    if fmt == "sarif":
        from . import sarif

        return sarif.render(result) + "\n"  # type: ignore[arg-type]
    from . import console

    return console.render(result, width=width, color=color, snippet=snippet)


def show(result: Result, file: TextIO | None = None) -> None:
    """Print the console rendering on a terminal stream (colours only on a tty, unless NO_COLOR)."""
    from . import console

    console.show(result, file or sys.stdout)
