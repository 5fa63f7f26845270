"""`jitscope report` (not implemented yet)."""

from __future__ import annotations

import argparse

from ..errors import JitscopeError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="(not implemented yet)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise JitscopeError("'report' is not implemented yet")
