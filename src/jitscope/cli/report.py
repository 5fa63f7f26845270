"""``jitscope report``: re-render any saved JSON result (from ``--json``) in another format."""

from __future__ import annotations

import argparse
import sys

from ..render import FORMATS
from ._common import write_output
from ._outputs import Input, Output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="re-render a saved JSON result as terminal text, HTML, JSON or SARIF",
                       description="Re-render a result saved with --json by any jitscope command.")
    p.add_argument("path", metavar="RESULT.json", action=Input, what="the result being rendered", kind="result",
                   recorded=True,
                   help="a file written by --json")
    p.add_argument("--format", "-f", choices=FORMATS, default=None,
                   help="output format (default: from the -o suffix: .html, .sarif, .json; else console)")
    p.add_argument("-o", "--output", metavar="PATH", action=Output, help="write here instead of standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..render import check_format, format_for_path, render
    from ..results import load_result

    fmt = args.format or format_for_path(args.output)
    result = load_result(args.path)
    check_format(result.kind, fmt)  # before anything is written
    if fmt == "console" and not args.output:
        from ..render import show

        show(result)
        return 0
    text = render(result, fmt)
    if args.output:
        write_output(args.output, text)
        print(f"wrote {args.output} ({fmt})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
