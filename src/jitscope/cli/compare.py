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
from ._common import add_call_options, add_json_option, check_outputs, save_outputs


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="measure eager vs jit variants: first call, compile phases, steady state, break-even",
        description="Measure variants of a function (eager, jit, jit of inner/outer scope, or your own) "
                    "from a cold cache and recommend one for a workload of --calls calls.",
    )
    p.add_argument("target", nargs="?", metavar="MOD:FN",
                   help="function to compare eager vs jax.jit (with --inner: the outer function)")
    p.add_argument("--inner", metavar="MOD:FN",
                   help="inner function called by TARGET through a module global: adds eager, jit(inner), "
                        "jit(outer), jit(both) by rebinding it while measuring")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=MOD:FN",
                   help="an extra variant, called as is (a jax.jit object counts as jitted); repeatable")
    p.add_argument("--reference", metavar="NAME", help="variant to compare outputs and speedups against "
                   "(default: the first eager variant)")
    p.add_argument("--calls", type=int, metavar="N", help="workload length for the recommendation "
                   "(default: steady state)")
    p.add_argument("--budget", type=float, default=0.5, metavar="SECONDS",
                   help="steady-state sampling time per variant (default 0.5)")
    p.add_argument("--min-samples", type=int, default=5, metavar="N", help="minimum steady samples (default 5)")
    p.add_argument("--no-phases", action="store_true",
                   help="skip the ahead-of-time trace/lower/compile split (saves one compile per jitted variant)")
    add_call_options(p)
    add_json_option(p)
    p.set_defaults(func=run)


def _parse_variant(text: str) -> tuple[str, str]:
    name, sep, target = text.partition("=")
    if not sep:
        target = text
        name = text.rpartition(":")[2]
    if not name.strip() or ":" not in target:
        raise UsageError(f"--variant '{text}': expected NAME=MOD:FN, e.g. --variant fast=mypkg.ops:fast_loss")
    return name.strip(), target.strip()


def build_variants(args: argparse.Namespace) -> tuple[list, list[str]]:
    """The variants the options ask for, and one line per variant that could not be resolved."""

    from ..collect.variants import Variant, jit_like, plain_function, scope_variants
    from ..targets import resolve_callable, resolve_target

    variants: list[Variant] = []
    problems: list[str] = []
    static = tuple(args.static_names)
    if args.target:
        try:
            outer = resolve_callable(args.target)
        except UsageError as e:
            problems.append(str(e))
            outer = None
        if args.inner:
            try:
                inner = resolve_target(args.inner)
                if not callable(inner.obj):
                    raise UsageError(f"'{args.inner}' is a {type(inner.obj).__name__}, not a function")
            except UsageError as e:
                problems.append(str(e))
                inner = None
            if outer is not None and inner is not None:
                variants += scope_variants(outer, inner.module, inner.attr, static)
            else:
                names = ["eager", "jit(inner)", "jit(outer)", "jit(both)"]
                if outer is not None:  # the outer function alone can still be measured
                    variants += [Variant("eager", plain_function(outer), False),
                                 Variant("jit(outer)", jit_like(outer, static), True)]
                    names = ["jit(inner)", "jit(both)"]
                variants += [Variant(n, None, error=problems[-1]) for n in names]
        elif outer is not None:
            base = plain_function(outer)
            label = getattr(base, "__name__", "fn")
            variants += [Variant("eager", base, False, f"{label} op by op"),
                         Variant(f"jit({label})", jit_like(outer, static), True)]
        else:
            variants += [Variant("eager", None, error=problems[-1]), Variant("jit", None, error=problems[-1])]
    elif args.inner:
        raise UsageError("--inner needs the outer function as TARGET: jitscope compare MOD:G --inner MOD:F")
    for text in args.variant:
        name, target = _parse_variant(text)
        try:
            variants.append(Variant(name, resolve_callable(target)))
        except UsageError as e:
            problems.append(str(e))
            variants.append(Variant(name, None, error=str(e)))
    if not variants:
        raise UsageError("nothing to compare: give MOD:FN (eager vs jit), --inner, or --variant NAME=MOD:FN")
    names = [v.name for v in variants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"variant name(s) used twice: {', '.join(dupes)}")
    return variants, problems


def run(args: argparse.Namespace) -> int:
    from .._compare import run_compare
    from ..render.console import make_console, render
    from ..targets import build_call, parse_static

    if args.calls is not None and args.calls < 1:
        raise UsageError(f"--calls must be >= 1, got {args.calls}")
    if args.budget <= 0 or args.min_samples < 1:
        raise UsageError("--budget must be > 0 and --min-samples >= 1")
    check_outputs(args)  # fail before measuring, not after
    args.static_names = list(parse_static(args.static))
    call_args, call_kwargs = build_call(args.arg, args.static, args.args_from, args.seed)
    variants, problems = build_variants(args)
    if all(v.fn is None for v in variants):
        raise UsageError(problems[0])
    names = [v.name for v in variants]
    if args.reference is not None and args.reference not in names:
        raise UsageError(f"--reference '{args.reference}' is not a variant (variants: {', '.join(names)})")
    result, _ = run_compare(variants, call_args, call_kwargs, calls=args.calls, budget_s=args.budget,
                            min_samples=args.min_samples, reference=args.reference, phases=not args.no_phases,
                            title=f"jitscope compare {args.target or ''}".strip(), static=args.static_names,
                            keep_partial_on_interrupt=True)
    render(result, make_console())  # the measurements reach the terminal even if the save fails
    for line in result.errors:
        print(f"jitscope: {line}", file=sys.stderr)
    save_outputs(result, args)
    if result.interrupted:
        return 130
    if problems:
        return EXIT_USAGE
    return EXIT_FINDINGS if result.errors else EXIT_OK
