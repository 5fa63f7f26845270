"""IPython / Jupyter integration: ``%load_ext jitscope`` then ``%%jitscope`` on a cell.

``%%jitscope`` runs the cell under ``jitscope.watch()`` and prints the compile summary
(compiles, why, cost, fixes). Options on the magic line:

* ``--events PATH``: also write the cell's compiles as JSONL;
* ``--no-explain``: do not turn on ``jax_explain_cache_misses`` for the cell;
* ``--fail-on-recompile``: raise ``jitscope.RecompileError`` if a function recompiles in the cell.

The last result is kept in the user namespace as ``_jitscope`` (a ``WatchResult``).
IPython is imported only when the extension is loaded.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="%%jitscope", add_help=False, exit_on_error=False)
    p.add_argument("--events")
    p.add_argument("--no-explain", action="store_true")
    p.add_argument("--fail-on-recompile", action="store_true")
    return p


def jitscope_cell_magic(shell: Any, line: str, cell: str) -> None:
    """Run ``cell`` in ``shell`` under ``jitscope.watch()`` and print the summary."""
    import sys

    from ._watch import RecompileError, watch
    from .errors import UsageError
    from .render.console import render

    try:
        opts = _parser().parse_args(shlex.split(line))
    except (argparse.ArgumentError, SystemExit, ValueError) as e:
        raise UsageError(f"%%jitscope: bad options {line!r} ({e})") from None
    w = watch(events=opts.events, explain=not opts.no_explain, fail_on_recompile=opts.fail_on_recompile,
              program="%%jitscope cell")
    with w:
        shell.run_cell(cell)
    result = w.result()
    shell.user_ns["_jitscope"] = result
    # One output per cell: rendered whole, then written once (rich prints each part as its own output in a
    # notebook: one summary came out as 16 outputs).
    text = render(result)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if result.violations:
        bad = [e for e in result.recompiles]
        raise RecompileError("%%jitscope: " + "; ".join(result.violations), bad[0])


def load_ipython_extension(ipython: Any) -> None:
    """Called by ``%load_ext jitscope``: registers the ``%%jitscope`` cell magic."""

    def _magic(line: str, cell: str) -> None:
        jitscope_cell_magic(ipython, line, cell)

    _magic.__doc__ = jitscope_cell_magic.__doc__
    ipython.register_magic_function(_magic, magic_kind="cell", magic_name="jitscope")
