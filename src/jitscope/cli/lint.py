"""`jitscope lint [PATHS]`: static detection of jit pitfalls (never imports jax)."""

from __future__ import annotations

import argparse
import os
import sys

from ._common import add_json_option, count, save_outputs, write_output
from ._outputs import Input, Output

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from ..results.lint import LintResult


def _codes(value: str) -> list[str]:
    return [v for v in value.replace(" ", ",").split(",") if v]


def _linted(paths: list[str], args: argparse.Namespace) -> list[str]:
    from .._lint import files_to_lint

    return files_to_lint(paths)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lint", help="find jit pitfalls in source files without running them",
                       description="Statically find jit pitfalls in Python files. Exit 0: no findings at or above "
                                   "--exit-on (default warning), 1: such findings, 2: usage error.")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", action=Input, what="a linted file", kind="source",
                   files=_linted, help="files or directories (default: .)")
    p.add_argument("--select", type=_codes, action="extend", metavar="CODES", default=[],
                   help="comma-separated rule codes or prefixes to enable (e.g. JS1,JS201); default: all")
    p.add_argument("--ignore", type=_codes, action="extend", metavar="CODES", default=[],
                   help="comma-separated rule codes or prefixes to disable")
    p.add_argument("--fix", action="store_true", help="apply safe fixes to the files")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply unsafe fixes")
    p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    p.add_argument("--format", "--output-format", dest="format", choices=("text", "json", "sarif", "github"),
                   default="text", help="output format (default text); github: pull-request annotations")
    p.add_argument("--statistics", action="store_true", help="print the number of findings per rule code")
    p.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODES` comments to the lines of all findings")
    p.add_argument("--output-file", "-o", "--output", metavar="PATH", action=Output, help="write the report there instead of stdout")
    p.add_argument("--no-snippet", action="store_true", help="text format: one line per finding, no source")
    p.add_argument("--jobs", "-j", type=count(1), metavar="N", help="worker processes (default: CPU count)")
    p.add_argument("--config", metavar="PYPROJECT", action=Input, what="the configuration", kind="config",
                   files=lambda value, args: [] if args.no_config else [value], help="read [tool.jitscope] from this file")
    p.add_argument("--no-config", action="store_true", help="ignore [tool.jitscope] in pyproject.toml")
    p.add_argument("--evidence", metavar="RUN", action=Input, what="the trace evidence", kind="evidence",
                   help="trace evidence of a run (a trace-evidence file, a watch result carrying one, or a "
                        "directory holding trace-evidence.json): functions the run saw JAX trace are linted as "
                        "traced, and findings say so. Default: .jitscope/trace-evidence.json when a run left one")
    p.add_argument("--no-evidence", action="store_true", help="ignore trace evidence, even at the default location")
    p.add_argument("--unknown-callers", action="store_true", default=None,
                   help="also lint the public functions of a package that no linted jit reaches as if a user "
                        "jitted them (info findings; default: the configuration's unknown-callers, else off)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument("--exit-on", choices=("error", "warning", "info"), default="warning",
                   help="lowest severity that makes the run fail with exit 1 (default warning: info findings "
                        "are reported but do not fail)")
    add_json_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._lint import run as lint
    from ..errors import UsageError

    if args.config and args.no_config:
        raise UsageError("--config and --no-config are mutually exclusive")
    if args.evidence and args.no_evidence:
        raise UsageError("--evidence and --no-evidence are mutually exclusive")
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    if args.statistics and args.format not in ("text", "json"):
        raise UsageError(f"--statistics prints text or json, not {args.format}")
    config = False if args.no_config else (args.config or True)
    result = lint(args.paths, select=args.select, ignore=args.ignore, fix=args.fix and not args.diff,
                  unsafe_fixes=args.unsafe_fixes, diff=args.diff, jobs=args.jobs, config=config,
                  keep_partial_on_interrupt=True, evidence=False if args.no_evidence else args.evidence,
                  env=bool(args.json or args.html or args.format == "json"),  # the outputs that show it
                  unknown_callers=args.unknown_callers)
    if args.add_noqa and not result.interrupted:
        return _add_noqa(result)
    if args.diff:
        text = result.diff
    elif args.statistics:
        from ..render import lint_statistics

        text = lint_statistics.render(result, args.format)
    elif args.format == "github":
        from ..render import github

        text = github.render(result)
    else:
        from ..render import render

        color = args.output_file is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        text = render(result, "console" if args.format == "text" else args.format, color=color,
                      snippet=not args.no_snippet)
    if args.output_file:
        write_output(args.output_file, text)
    else:
        sys.stdout.write(text)
    save_outputs(result, args)
    if result.interrupted:
        print(f"jitscope: interrupted after {result.files_checked} file(s); the report covers those",
              file=sys.stderr)
        return 130
    if args.exit_zero:
        return 0
    if args.diff:
        return 1 if result.fixes_applied else 0
    return result.exit_status(args.exit_on)


def _add_noqa(result: LintResult) -> int:
    """Write the noqa comments; exit 0, or 1 when a file could not be written (one line each)."""
    from .._lint_noqa import add_noqa

    outcome = add_noqa(result)
    for path, why in outcome.refused:
        print(f"jitscope: {path}: noqa comments not written: {why}", file=sys.stderr)
    n, files = outcome.added, len(outcome.files)
    print(f"Added {n} noqa directive{'s' if n != 1 else ''} to {files} file{'s' if files != 1 else ''}.")
    return 1 if outcome.refused else 0
