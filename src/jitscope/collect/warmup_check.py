"""``jitscope watch --warmup SCRIPT``: the warm-up run where a server or a training run would run it, recorded
apart from the program (issues #15 item 5, #26 item 1).

Two moments, both in the program's own process (JAX's in-memory caches are per process; a persistent
cache hit still traces, lowers and counts as a backend compile: docs/warmup.md):

1. before the program: SCRIPT runs as ``python SCRIPT`` would and compiles what it can import;
2. at the program's main guard, when SCRIPT has entries of the program's own ``__main__`` (a training
   script's ``train_step``): the program runs as ``__main__`` up to its first top-level
   ``if __name__ == "__main__":`` (``_warmup_runtime.run_as_main``), so its functions exist and are the
   objects its calls will use; SCRIPT is loaded as a module (its own main guard does not run) and its
   ``warmup(main=<the program's module>, only_main=True)`` compiles them; then the program goes on.

The program's recording is stopped while the warm-up compiles (step 2 happens inside the program's run), so
every compile the program still makes is one the warm-up missed.
"""

from __future__ import annotations

import ast
import os
import runpy
import sys
from collections.abc import Callable
from typing import Any

from .runner import run_program
from .warmup_run import WarmupRun


class WarmupCheck:
    """One warm-up script checked against one program. ``pre`` and the program's ``session`` are watch sessions
    (``start``/``stop``/``events``/``history``), passed in: collect never imports the command that owns them."""

    def __init__(self, script: str, pre: Any) -> None:
        self.script = script
        self.pre = pre  # a WatchSession of its own: the warm-up's compiles are not the program's
        self.run = WarmupRun(script=script, main_entries=_main_entries(script))

    def before(self, session: Any) -> None:
        """Step 1: the script as ``python SCRIPT`` runs it; seeds ``session``'s reasons with its compiles."""
        cwd = os.getcwd()
        self.pre.start()
        try:
            self.run.exit_code = run_program(self.script, [])
        finally:
            self.pre.stop()
            _chdir(cwd)
        self._account(session)

    def at_main_guard(self, session: Any) -> Callable[[Any], None] | None:
        """Step 2's callback for ``run_program(at_main_guard=...)``; None when the script has no ``__main__`` entry."""
        if not self.run.main_entries:
            return None
        self.run.main_guard = False

        def warm(module: Any) -> None:
            self.run.main_guard = True
            session.stop()  # the program's recording pauses: these compiles are the warm-up's
            self.pre.start()
            cwd = os.getcwd()
            try:
                namespace = runpy.run_path(self.script, run_name="__jitscope_warmup__")
                warmup = namespace.get("warmup")
                if not callable(warmup):
                    print(f"jitscope: {self.script} has no warmup(): its entries of the program's __main__ are not "
                          "warmed", file=sys.stderr)
                    return
                counts = warmup(main=module, only_main=True)
                if isinstance(counts, dict) and counts.get("failed") and self.run.exit_code in (None, 0):
                    self.run.exit_code = 1
            except Exception as e:  # noqa: BLE001 - the warm-up's failure is reported, the program still runs
                print(f"jitscope: the warm-up at the program's main guard failed: {type(e).__name__}: {e}",
                      file=sys.stderr)
                self.run.exit_code = 1
            finally:
                self.pre.stop()
                _chdir(cwd)
                self._account(session)
                session.start()

        return warm

    def _account(self, session: Any) -> None:
        events = self.pre.events
        new = events[self.run.compiles:]
        session.history.seed(new)  # a compile it missed is explained against what it did compile
        self.run.compiles = len(events)
        self.run.seconds = float(sum(e.total_seconds for e in events))

    def finish(self, result: Any) -> WarmupRun:
        """The run's check: what the program compiled after the warm-up is what the warm-up missed."""
        w = self.run
        result.warmup = w
        w.missed = len(result.events)
        w.missed_functions = [
            f"{fs.function} ({os.path.basename(fs.definition.file)}:{fs.definition.line}) x{fs.compiles}"
            if fs.definition else f"{fs.function} x{fs.compiles}" for fs in result.functions]
        if w.missed:
            result.violations.append(f"warm-up {w.script} missed {w.missed} compile"
                                     f"{'s' if w.missed != 1 else ''}: {', '.join(w.missed_functions)}")
        return w


def _main_entries(script: str) -> int:
    """Entries of the program's ``__main__`` in a generated script's CALLS table, read as a literal (never run)."""
    try:
        with open(script, encoding="utf-8") as f:
            tree = ast.parse(f.read(), script)
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CALLS" for t in node.targets):
                calls = ast.literal_eval(node.value)
                return sum(1 for c in calls if isinstance(c, dict) and c.get("module") == "__main__")
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return 0
    return 0


def _chdir(path: str) -> None:
    try:
        os.chdir(path)
    except OSError:
        pass
