"""`jitscope doctor [--json]`: JAX versions, backend, devices, which hooks attached, cache settings."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="show the JAX jitscope sees and which of its hooks attached",
                       description="JAX/jaxlib versions, backend, devices, the capability table "
                                   "(which private hooks attached and why not) and persistent-cache settings.")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._doctor import doctor_text

    sys.stdout.write(doctor_text(args.json))
    return 0
