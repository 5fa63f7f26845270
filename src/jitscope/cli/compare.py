"""`jitscope compare`: measure eager / jit variants of your function and recommend one.

Exit codes: 0 all variants measured and outputs match; 1 a variant raised or its output
differs from the reference in structure, shape or dtype; 2 usage error (bad option, arg spec
that does not parse, unknown module or function; when other variants could still be built
they are measured and reported first).
"""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from ._common import (
    add_call_options,
    add_json_option,
    add_progress_option,
    add_seconds_option,
    count,
    module_input,
    progress,
    save_outputs,
)
from ._outputs import Input, module_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="measure eager vs jit variants: first call, compile phases, steady state, break-even",
        description="Measure variants of a function (eager, jit, jit of inner/outer scope, or your own) "
                    "from a cold cache and recommend one for a workload of --calls calls.",
    )
    p.add_argument("target", nargs="?", metavar="MOD:FN", **module_input("a compared module"),
                   help="function to compare eager vs jax.jit (with --inner: the outer function)")
    p.add_argument("--inner", metavar="MOD:FN", **module_input("a compared module"),
                   help="inner function called by MOD:FN through a module global: adds eager, jit(inner), "
                        "jit(outer), jit(both) by rebinding it while measuring")
    p.add_argument("--variant", action=Input, append=True, default=[], metavar="NAME=MOD:FN", what="a compared module", kind="module",
                   files=lambda value, args: [module_file(v.partition("=")[2] or v) for v in value],
                   help="an extra variant, called as is (a jax.jit object counts as jitted); repeatable")
    p.add_argument("--effort", action="store_true",
                   help="add jit(MOD:FN) once per compile-effort setting this JAX has (jax_optimization_level "
                        "O0-O3, jax_exec_time_optimization_effort -1/+1): compile time, steady time, break-even")
    p.add_argument("--reference", metavar="NAME", help="variant to compare outputs and speedups against "
                   "(default: the first eager variant)")
    p.add_argument("--calls", type=count(1), metavar="N", help="workload length for the recommendation "
                   "(default: steady state)")
    add_seconds_option(p, "--sample-seconds", "--budget", "budget", 0.5,
                       "steady-state sampling time per variant (default 0.5)")
    p.add_argument("--min-samples", type=count(1), default=5, metavar="N", help="minimum steady samples (default 5)")
    p.add_argument("--no-phases", action="store_true",
                   help="skip the ahead-of-time trace/lower/compile split (saves one compile per jitted variant)")
    add_call_options(p)
    add_json_option(p)
    add_progress_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._compare import losing_variant_command, run_compare, variants_for
    from ..render import show
    from ..targets import build_call, parse_static

    if args.calls is not None and args.calls < 1:
        raise UsageError(f"--calls must be >= 1, got {args.calls}")
    args.static_names = list(parse_static(args.static))
    call_args, call_kwargs = build_call(args.arg, args.static, args.args_from, args.seed)
    variants, problems = variants_for(args.target, args.inner, args.variant, args.static_names, effort=args.effort)
    if all(v.fn is None for v in variants):
        raise UsageError(problems[0])
    names = [v.name for v in variants]
    if args.reference is not None and args.reference not in names:
        raise UsageError(f"--reference '{args.reference}' is not a variant (variants: {', '.join(names)})")
    with progress(args, "compare"):
        result, _ = run_compare(variants, call_args, call_kwargs, calls=args.calls, sample_seconds=args.budget,
                                min_samples=args.min_samples, reference=args.reference, phases=not args.no_phases,
                                title=f"jitscope compare {args.target or ''}".strip(), static=args.static_names,
                                keep_partial_on_interrupt=True)
    result.inspect_command = losing_variant_command(result, variants, args.target, args.inner, args.variant,
                                                    args.arg or [], args.static or [], args.args_from)
    show(result)  # the measurements reach the terminal even if the save fails
    for line in result.errors:
        print(f"jitscope: {line}", file=sys.stderr)
    if args.effort:  # the effort flags this JAX lacks (0.12 no longer has jax_exec_time_optimization_effort)
        from .._compare import effort_flags_missing

        for line in effort_flags_missing():
            print(f"jitscope: note: --effort: {line}", file=sys.stderr)
    save_outputs(result, args)
    if result.interrupted:
        return 130
    if problems:
        return EXIT_USAGE
    return EXIT_FINDINGS if result.errors else EXIT_OK
