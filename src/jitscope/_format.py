"""How every renderer writes seconds, bytes, ratios and paths (the ground floor: imports only the stdlib)."""

from __future__ import annotations

import math
import os


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


def fmt_count(x: float | None) -> str:
    """A count or flops in decimal units: 786k, 7.32M, 1.29G (``-`` for None)."""
    if x is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{unit}"
    return f"{x:.3g}"


def fmt_ratio(r: float | None) -> str:
    """``3.2x`` style ratio, with enough digits to tell 1.04x from 1.4x."""
    if r is None or not math.isfinite(r):
        return "-"
    return f"{r:.3g}x" if r < 100 else f"{r:,.0f}x"


def faster_by(speedup: float) -> str:
    """``3.2x faster`` for a speedup above 1, ``2.5x slower`` below (speedup = old time / new time)."""
    if speedup >= 1:
        return f"{fmt_ratio(speedup)} faster"
    return f"{fmt_ratio(1 / speedup)} slower"


def fmt_number(x: float | None, spec: str = ".3g") -> str:
    """``x`` formatted with ``spec``; ``n/a`` for None (a value JSON could not hold: inf or NaN)."""
    return "n/a" if x is None else format(x, spec)


def printable(text: object) -> str:
    """Text from a file (a run, a result) as a terminal may show it: control characters and escape
    sequences written as escapes (``\\x1b``, ``\\n``), never interpreted."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def shown_path(path: str | os.PathLike[str], cwd: str | None = None) -> str:
    """How every report shows a file (console, HTML, the timeline, stall reports, command lines it suggests):
    relative to the current directory when the file is under it, else absolute; one rule (docs/cli.md,
    "Paths"). A relative path is taken as relative to ``cwd``; a pseudo-file (``<string>``) is kept."""
    p = os.fspath(path)
    if not p or p.startswith("<"):
        return p
    here = cwd or os.getcwd()
    full = os.path.normpath(os.path.join(here, p))
    try:
        rel = os.path.relpath(full, here)
    except ValueError:  # another drive (Windows)
        return full
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)
    return full if outside or os.path.dirname(here) == here else rel  # from the root: absolute


def shown_where(path: str | os.PathLike[str], line: int | None) -> str:
    """``shown_path(path):line``."""
    return f"{shown_path(path)}:{line}"


def shown_program(program: str) -> str:
    """A watched program as reports name it: a script by ``shown_path``; ``-m module`` and ``<python block>``
    as they are."""
    return program if not program or program.startswith(("-m ", "<")) else shown_path(program)
