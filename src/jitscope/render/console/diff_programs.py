"""Terminal lines for a diff's program changes (``analyze/program_diff.py``) and run B's duplicate compiles."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.diff import DiffResult

MAX_SHOWN = 10


def render(result: DiffResult, console: Console) -> None:
    """How functions' programs changed from A to B, then B's duplicate compiles; nothing when there are none."""
    from rich.markup import escape

    changes = getattr(result, "programs", [])
    if changes:
        console.print(f"Programs that changed (normalised StableHLO), {len(changes)}:")
        for c in changes[:MAX_SHOWN]:
            where = f" ({os.path.basename(c.definition.file)}:{c.definition.line})" if c.definition else ""
            console.print(f"  {escape(c.function)}{escape(where)}: {escape(c.summary())}")
        if len(changes) > MAX_SHOWN:
            console.print(f"  ... and {len(changes) - MAX_SHOWN} more (see --json / --html)")
    dups = getattr(result, "duplicates", [])
    if dups:
        wasted = sum(f.seconds for f in dups)
        console.print(f"Duplicate compiles in B: {len(dups)}, {fmt_seconds(wasted)} wasted")
        for f in dups[:MAX_SHOWN]:
            console.print(f"  {f.code} {escape(f.message)}")
        if len(dups) > MAX_SHOWN:
            console.print(f"  ... and {len(dups) - MAX_SHOWN} more")
