"""Sentences built from analyzers' verdicts, shared by the console and HTML renderers."""

from __future__ import annotations

from .._format import fmt_ratio, fmt_seconds
from ..analyze.compare import Recommendation


def recommendation_text(rec: Recommendation) -> str:
    """One sentence built from a Recommendation's numbers."""
    if rec.runner_up is None:
        return f"only {rec.best} was measured successfully"
    if rec.calls is None:
        s = (f"steady state: {rec.best} is fastest per call ({fmt_seconds(rec.best_total_s)}), "
             f"{fmt_ratio(rec.ratio)} faster than {rec.runner_up} ({fmt_seconds(rec.runner_up_total_s)})")
        if rec.best_from_call > 1:
            s += f"; counting its first call it is the best choice from call {rec.best_from_call} on"
        return s
    s = (f"for {rec.calls} call{'s' if rec.calls != 1 else ''}: use {rec.best} "
         f"({fmt_seconds(rec.best_total_s)} in total), {fmt_ratio(rec.ratio)} less than {rec.runner_up} "
         f"({fmt_seconds(rec.runner_up_total_s)}, {fmt_seconds(rec.saving_s)} more)")
    if rec.best_from_call > 1 and rec.best_until_call is not None:
        s += (f"; {rec.best} is the best choice for {rec.best_from_call} to {rec.best_until_call} calls, "
              f"{rec.overtaken_by} beyond")
    elif rec.best_from_call > 1:
        s += f"; {rec.best} is the best choice from call {rec.best_from_call} on"
    elif rec.best_until_call is not None:
        n = rec.best_until_call
        s += f"; beyond {n} call{'s' if n != 1 else ''} {rec.overtaken_by} wins"
    else:
        s += f"; {rec.best} wins from the first call"
    return s
