"""The warmup command: the warm-up plan for a recorded watch run (``jitscope warmup RUN.json -o warmup.py``).

A server that must not compile while it serves warms its jitted functions up first; writing that
list of shapes by hand goes stale with every model change (vllm's TPU backend keeps such a list).
``warmup_plan`` reads a watch run (a ``--json`` result or an ``--events`` file, read as ``jitscope
diff`` reads them) and returns what an ahead-of-time script can compile exactly, and what it cannot
(``analyze/warmup_plan.py``); ``render/warmup_script.py`` writes the script. Checking a script
against the program is ``jitscope watch --warmup warmup.py prog.py`` (``_watch.watch_program``).
"""

from __future__ import annotations

import os

from .analyze.warmup_plan import WarmupPlan, plan
from .results.watch_run import load_run


def warmup_plan(run: str | os.PathLike[str]) -> WarmupPlan:
    """The warm-up plan for the compiles recorded in ``run`` (watch ``--json`` result or ``--events`` file).

    Raises:
        UsageError: a missing or unreadable file, or one that is not a watch run.
    """
    _program, events = load_run(run, command="warmup reads watch runs")
    return plan(events)
