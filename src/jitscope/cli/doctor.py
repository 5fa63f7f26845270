"""`jitscope doctor [--format text|json] [--json PATH]`: JAX versions, backend, devices, which hooks attached,
cache settings."""

from __future__ import annotations

import argparse
import sys

from ._common import write_output
from ._outputs import Output


class _JsonOption(Output):
    """``--json PATH`` writes the report as JSON to PATH, as ``--json`` does in every command. A bare ``--json``
    (its meaning before issue #26: JSON on stdout) still works as a deprecated spelling of ``--format json``."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        if values is None:
            namespace.format = "json"
            namespace.__dict__.setdefault("renamed", []).append(
                "a bare --json is a deprecated spelling of --format json (docs/cli.md); --json PATH writes a file")
            return
        super().__call__(parser, namespace, values, option_string)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="show the JAX jitscope sees and which of its hooks attached",
                       description="JAX/jaxlib versions, backend, devices, the capability table "
                                   "(which private hooks attached and why not) and persistent-cache settings.")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="what is printed: text (default) or the report as JSON")
    p.add_argument("--json", action=_JsonOption, nargs="?", const=None, metavar="PATH",
                   help="also write the report as JSON to PATH")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._doctor import doctor_text

    sys.stdout.write(doctor_text(args.format == "json"))
    if args.json:
        write_output(args.json, doctor_text(True))
    return 0
