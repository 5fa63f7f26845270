"""`jitscope scale`: parse, call ``jitscope.scale``, plot, render, exit (1 when a size failed)."""

from __future__ import annotations

import argparse
import sys

from ._common import (
    add_json_option,
    add_progress_option,
    add_seconds_option,
    count,
    module_input,
    progress,
    save_outputs,
)
from ._outputs import Output


def _sizes(text: str) -> list[int]:
    from ..errors import UsageError

    items = text.replace(" ", "").split(",")
    try:
        if any(not s for s in items):
            raise ValueError("empty item")
        return [int(s) for s in items]
    except ValueError:
        raise UsageError(f"--sizes '{text}': expected comma-separated integers, e.g. 100,200,400") from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "scale", help="how trace / compile / run time and jaxpr size grow with problem size",
        description="Call FACTORY(n) -> (fn, args) for each size, measure a cold trace/lower/compile and the "
                    "steady run, fit growth exponents (log-log), and name the graph bloat behind superlinear "
                    "compile growth.")
    p.add_argument("target", metavar="MOD:FACTORY", **module_input("the scaled module"), help="make(n) returning (fn, args) or (fn, args, kwargs)")
    p.add_argument("--sizes", default="100,200,400,800,1600", help="comma-separated sizes (default 100,...,1600)")
    p.add_argument("--repeats", type=count(1), default=None,
                   help="cold compiles per size; the minimum is used (default: 2, then more, up to 5, while the "
                        "compile-time growth class is unsettled)")
    p.add_argument("--no-run", action="store_true", help="do not time the compiled function's run")
    add_seconds_option(p, "--sample-seconds", "--budget", "budget", 0.1,
                       "time spent sampling each size's steady run (default 0.1)")
    p.add_argument("--plot", metavar="PREFIX", action=Output, form="prefix", suffixes=(".png", ".svg"), help="write a log-log plot to PREFIX.png and PREFIX.svg (matplotlib)")
    add_json_option(p)
    add_progress_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import _scale
    from ..errors import EXIT_FINDINGS, UsageError
    from ..render import show
    from ..targets import resolve_callable

    sizes = _sizes(args.sizes)
    if args.plot:
        from ..render.plot import _pyplot

        _pyplot()  # fail before measuring when matplotlib is missing
    make = resolve_callable(args.target)
    with progress(args, "scale"):
        result = _scale.scale(make, sizes, repeats=args.repeats, run=not args.no_run, sample_seconds=args.budget,
                              target=args.target, keep_partial_on_interrupt=True)
    plot_error = None
    if args.plot:
        from ..render.plot import plot_scale

        try:
            result.plot_files = plot_scale(result, args.plot)
        except (OSError, ValueError) as e:  # keep the measurements; report the plot failure last
            plot_error = f"--plot {args.plot}: cannot write the plot ({e})"
    show(result)
    save_outputs(result, args)
    if result.interrupted:
        print("jitscope: interrupted; the sizes measured before it are shown and saved", file=sys.stderr)
        return 130
    if plot_error:
        raise UsageError(plot_error)
    return EXIT_FINDINGS if any(p.error for p in result.points) else 0
