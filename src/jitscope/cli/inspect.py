"""`jitscope inspect`: parse, call ``jitscope.inspect``, render, exit (1 when tracing failed)."""

from __future__ import annotations

import argparse
import sys

from ._common import (
    add_call_options,
    add_json_option,
    add_progress_option,
    add_seconds_option,
    module_input,
    progress,
    save_outputs,
)
from ._outputs import Output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "inspect", help="anatomy of one jitted function: jaxpr, bloat, HLO, fusions, cost, tracer errors",
        description="Trace, lower, compile and run one function under jit; show its jaxpr, graph bloat traced "
                    "to source lines, HLO fusions, cost, captured globals, trace-time side effects and "
                    "tracer errors explained.")
    p.add_argument("target", metavar="MOD:FN", **module_input("the inspected module"), help="e.g. mypkg.model:loss or path/to/file.py:f")
    add_call_options(p)
    add_json_option(p)
    add_progress_option(p)
    p.add_argument("--dump", metavar="DIR", action=Output, form="dir", help="write 01_jaxpr.txt, 02_stablehlo.mlir, 03_hlo.before.txt, "
                                                 "04_hlo.after.txt, 05_fusions.dot (+ .svg with graphviz)")
    p.add_argument("--pprof", metavar="PATH", action=Output, help="write a gzipped pprof profile of the compile cost per source "
                                                   "line (equations, HLO ops, estimated compile time per call stack)")
    p.add_argument("--no-run", action="store_true", help="trace, lower and compile only; do not run")
    p.add_argument("--no-numerics", action="store_true", help="skip the eager run and jit-vs-eager comparison")
    add_seconds_option(p, "--eager-timeout", "--eager-budget", "eager_budget", 3.0,
                       "stop the eager run (numerics) after this long; default 3")
    p.add_argument("--passes", action="store_true",
                   help="profile the compile and show the backend compile time by XLA pass and pipeline")
    add_seconds_option(p, "--sample-seconds", "--budget", "budget", 0.3,
                       "time spent sampling the steady-state run (default 0.3)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import _inspect
    from ..errors import EXIT_FINDINGS, UsageError
    from ..render import show
    from ..targets import build_call, parse_static, resolve_target

    if args.dump:
        from pathlib import Path

        try:  # fail before measuring, not after
            Path(args.dump).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--dump {args.dump}: cannot create directory ({e.strerror})") from None
    target = resolve_target(args.target)
    if not callable(target.obj):
        raise UsageError(f"'{args.target}' is a {type(target.obj).__name__}, not a function")
    call_args, call_kwargs = build_call(args.arg, args.static, args.args_from, args.seed)
    static_names = tuple(parse_static(args.static))
    with progress(args, "inspect"):
        result = _inspect.inspect(target.obj, *call_args, static_argnames=static_names, run=not args.no_run,
                                  numerics=not args.no_numerics, dump=args.dump, sample_seconds=args.budget,
                                  target=args.target, keep_partial_on_interrupt=True,
                                  eager_timeout=args.eager_budget, passes=args.passes,
                                  **call_kwargs)
    show(result)
    save_outputs(result, args)
    if args.pprof:
        from ..render.pprof import write_pprof

        write_pprof(result, args.pprof)
    if result.status == "interrupted":
        print("jitscope: interrupted; what was measured before it is shown and saved", file=sys.stderr)
        return 130
    if result.status != "ok":
        finding = result.findings[0]
        print(f"jitscope: tracing {args.target} failed: {finding.message}", file=sys.stderr)
        return EXIT_FINDINGS
    return 0
