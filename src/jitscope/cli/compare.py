"""`jitscope compare` (not implemented yet)."""

from __future__ import annotations

import argparse

from ..errors import JitscopeError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="(not implemented yet)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise JitscopeError("'compare' is not implemented yet")
