"""`jitscope demo`: five jax.jit articles' case studies measured live, each with a lesson computed from its numbers.

Exit codes: 0 every case study ran; 1 a case study failed (the others are still shown and
written); 2 usage error (unknown --only name, HTML renderer unavailable).
"""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_FINDINGS, EXIT_OK
from ._common import add_json_option, save_outputs


def register(sub: argparse._SubParsersAction) -> None:
    from ..gallery import CASES

    p = sub.add_parser("demo", help="case studies from five articles on jax.jit, measured live on this machine",
                       description="Run the case studies of five articles on jax.jit (" + ", ".join(CASES)
                                   + ") with the compare engine and print each table with a lesson computed from "
                                   "the numbers.")
    p.add_argument("--quick", action="store_true", help="smaller inputs and budgets (whole demo under 30 s on a CPU)")
    p.add_argument("--only", metavar="NAME[,NAME]", help="run only these case studies: " + ", ".join(CASES))
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_json_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._demo import demo, parse_only
    from ..render import show as show_result

    names = parse_only(args.only)
    show = not args.no_progress and sys.stderr.isatty()
    if show:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True) as bar:
            task = bar.add_task("jitscope demo", total=len(names))
            seen: list[str] = []

            def on_case(name: str, title: str) -> None:
                if seen:
                    bar.advance(task)
                seen.append(name)
                bar.update(task, description=title)

            result = demo(names, quick=args.quick, on_case=on_case)
            bar.advance(task)
    else:
        result = demo(names, quick=args.quick)
    show_result(result)
    save_outputs(result, args)
    for case in result.cases:
        if case.error is not None:
            print(f"jitscope: case study '{case.name}' failed: {case.error}", file=sys.stderr)
    if result.interrupted:
        print("jitscope: interrupted", file=sys.stderr)
        return 130
    return EXIT_OK if result.ok else EXIT_FINDINGS
