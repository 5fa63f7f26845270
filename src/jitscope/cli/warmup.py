"""`jitscope warmup RUN -o warmup.py`: a runnable ahead-of-time warm-up script from a recorded watch run."""

from __future__ import annotations

import argparse
import os
import sys

from ._common import count, write_output
from ._outputs import Input, Output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "warmup", help="write a script that compiles ahead of time every (function, signature) a watch run saw",
        description="Read a watch run (`jitscope watch --json` result or `--events` file) and write a Python "
                    "script that compiles every observed jit call ahead of time (`.lower(...).compile()` on the "
                    "jitted object the program called, with its arguments rebuilt as values: custom pytrees "
                    "through their treedefs, arrays as jax.ShapeDtypeStruct). Run `python warmup.py train.py ARGS` "
                    "to run a program warmed (its own __main__ functions at its main guard). Calls it cannot "
                    "rebuild exactly are listed (in the script and here), never guessed. Check the script with "
                    "`jitscope watch --warmup warmup.py program.py`.")
    p.add_argument("run", metavar="RUN", action=Input, what="the watch run", kind="run", recorded=True, help="a watch run: `jitscope watch --json` result or `--events` JSONL")
    p.add_argument("-o", "--output", required=True, metavar="PATH", action=Output, help="the script to write (e.g. warmup.py)")
    p.add_argument("--threads", type=count(1), default=1, metavar="N",
                   help="the script compiles in N threads by default (its own --threads overrides; default 1)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._format import printable
    from .._warmup import warmup_plan
    from ..render.warmup_script import render

    out = args.output
    plan = warmup_plan(args.run)
    write_output(out, render(plan, out, threads=args.threads, source=os.path.basename(args.run)))
    warmed, functions = plan.functions
    print(f"jitscope warmup: wrote {args.output}: {len(plan.calls)} ahead-of-time compiles covering "
          f"{plan.covered} of {plan.compiles} recorded compiles (functions: {warmed} of {functions})")
    main = [c for c in plan.calls if c.main]
    if main:
        prog = printable(os.path.basename(main[0].file) or "the program")
        print(f"  {len(main)} of the program's own __main__ ({prog}): compiled in its process, at its "
              f"`if __name__ == \"__main__\":` (python {printable(args.output)} {prog} ARGS..., or jitscope watch "
              "--warmup), or where it calls warmup() itself")
    if plan.skipped:
        print(f"not covered ({sum(s.compiles for s in plan.skipped)} compiles; listed in the script, not guessed):")
        for s in plan.skipped:
            where = f" at {_shown(s.where)}" if s.where else ""
            print(f"  {printable(s.function)}{printable(where)}: {printable(s.reason)}")
    if not plan.compiles:
        print("jitscope warmup: the run recorded no compiles; the script compiles nothing", file=sys.stderr)
    return 0


def _shown(where: str) -> str:
    """A definition site relative to the working directory when it is under it."""
    file, _, line = where.rpartition(":")
    if not file:
        return where
    from .._format import shown_path

    return f"{shown_path(file)}:{line}"
