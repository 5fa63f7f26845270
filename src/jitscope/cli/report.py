"""``jitscope report``: re-render any saved JSON result (from ``--json``) in another format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from ._common import write_output

FORMATS = ("console", "html", "json", "sarif")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="re-render a saved JSON result as terminal text, HTML, JSON or SARIF",
                       description="Re-render a result saved with --json by any jitscope command.")
    p.add_argument("path", metavar="RESULT.json", help="a file written by --json")
    p.add_argument("--format", "-f", choices=FORMATS, default=None,
                   help="output format (default: from the -o suffix: .html, .sarif, .json; else console)")
    p.add_argument("-o", "--output", metavar="PATH", help="write here instead of standard output")
    p.set_defaults(func=run)


def _format_for(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    suffix = Path(args.output).suffix.lower() if args.output else ""
    return {".html": "html", ".htm": "html", ".sarif": "sarif", ".json": "json"}.get(suffix, "console")


def render_to(result, fmt: str) -> str:  # noqa: ANN001 - any Result
    """Render ``result`` in ``fmt`` ("html", "json" or "sarif") and return the text."""
    if fmt == "html":
        from ..render import html

        return html.render(result)
    if fmt == "json":
        return result.to_json() + "\n"
    if fmt == "sarif":
        from ..render import sarif

        if not hasattr(result, "findings"):
            raise UsageError(f"SARIF needs a result with findings (lint, inspect); '{result.kind}' has none")
        return sarif.render(result)
    raise UsageError(f"unknown format '{fmt}'")


def run(args: argparse.Namespace) -> int:
    from ..results import load_result

    result = load_result(args.path)
    fmt = _format_for(args)
    if fmt == "console":
        from ..render.console import make_console, render

        if args.output:
            import io

            buf = io.StringIO()
            render(result, make_console(file=buf, width=120))
            write_output(args.output, buf.getvalue())
        else:
            render(result, make_console())
        return 0
    text = render_to(result, fmt)
    if args.output:
        write_output(args.output, text)
        print(f"wrote {args.output} ({fmt})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
