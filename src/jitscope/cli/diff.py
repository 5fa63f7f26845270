"""`jitscope diff RUN_A RUN_B`: two watch runs compared function by function (for CI)."""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_BUDGET
from ._common import add_json_option, save_outputs
from ._outputs import Input


def _fraction(text: str) -> float:
    """``25%`` or ``0.25`` -> 0.25 (refuses negatives and NaN in one line)."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number or a percentage") from None
    if not 0 <= value < 1e4:
        raise argparse.ArgumentTypeError(f"{text} is not a threshold >= 0")
    return value


def _nonnegative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 <= value < 1e9:
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds >= 0")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diff", help="compare two watch runs: compiles, compile time and recompile causes per function",
        description="Compare run B with run A of a program (each a `jitscope watch --json` result or an "
                    "`--events` JSONL file): per function, compiles and compile seconds in each run, recompile "
                    "causes that are new in B or gone, and time changes beyond run-to-run noise. With --fail-on, "
                    "exit 3 when B breaks a condition (for CI).")
    p.add_argument("run_a", metavar="RUN_A", action=Input, what="a compared run", kind="run", recorded=True,
                   help="the reference run (watch --json or --events file)")
    p.add_argument("run_b", metavar="RUN_B", action=Input, what="a compared run", kind="run", recorded=True,
                   help="the run to check")
    p.add_argument("--fail-on", action="append", default=[], metavar="COND",
                   help="exit 3 when B breaks COND: new-compiles (a function compiles more often), new-causes "
                        "(a new recompile cause), time:PCT (total compile seconds over PCT%% more); repeatable "
                        "or comma-separated")
    p.add_argument("--time-threshold", type=_fraction, default=0.25, metavar="PCT",
                   help="a function's compile time changed only if it differs by more than this (default 25%%)")
    p.add_argument("--min-seconds", type=_nonnegative, default=0.05, metavar="SECONDS",
                   help="... and by more than SECONDS (default 0.05): smaller changes are run-to-run noise")
    add_json_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._diff import diff
    from ..render import show

    conditions = [c for item in args.fail_on for c in item.split(",") if c.strip()]
    result = diff(args.run_a, args.run_b, fail_on=conditions, time_threshold=args.time_threshold,
                  min_seconds=args.min_seconds)
    show(result)
    save_outputs(result, args)
    if result.violations:
        for v in result.violations:
            print(f"jitscope: diff --fail-on: {v}", file=sys.stderr)
        return EXIT_BUDGET
    return 0
