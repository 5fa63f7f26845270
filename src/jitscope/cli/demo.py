"""`jitscope demo` (not implemented yet)."""

from __future__ import annotations

import argparse

from ..errors import JitscopeError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="(not implemented yet)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise JitscopeError("'demo' is not implemented yet")
