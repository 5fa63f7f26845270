"""The ``jitscope`` command line: parse, call the library, render, exit. Nothing else.

Each subcommand lives in ``cli/<command>.py`` with ``register(subparsers)`` that
adds its parser and sets ``func``; ``func(args) -> int`` returns the exit code.
Heavy imports (jax) happen inside ``func`` so ``jitscope lint`` and ``--help`` stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .._version import __version__
from ..errors import EXIT_USAGE, JitscopeError

COMMANDS = ("demo", "compare", "watch", "inspect", "scale", "lint", "rules", "report", "doctor")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every usage error
        self.print_usage(sys.stderr)
        print(f"jitscope: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="jitscope",
        description="See what jax.jit does to your program, and what to do about it.",
    )
    parser.add_argument("--version", action="version", version=f"jitscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except JitscopeError as e:
        print(f"jitscope: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("jitscope: interrupted", file=sys.stderr)
        return 130
