"""What running a warm-up script before a watched program did (``jitscope watch --warmup SCRIPT``).

The warm-up runs in the program's own process, first, as ``python SCRIPT`` would run it, and, for the
functions of the program's own ``__main__``, again at the program's main guard (``warmup_check.py``),
under its own recording: its compiles are not the program's, and whatever the program compiles
afterwards is what the warm-up missed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._serde import Record


@dataclass
class WarmupRun(Record):
    """The warm-up script's run: its exit status, the compiles it made and their seconds, and how many
    compiles the program made after it (``missed``), by function (``missed_functions``, most first)."""

    script: str
    exit_code: int | None = None
    compiles: int = 0
    seconds: float = 0.0
    missed: int = 0
    missed_functions: list[str] = field(default_factory=list)  # "name (file:line) xN"
    # The script's entries of the program's own __main__ (a script's train_step), warmed at the program's
    # main guard; ``main_guard``: whether the program reached one (None: no such entries, nothing to wait for).
    main_entries: int = 0
    main_guard: bool | None = None
