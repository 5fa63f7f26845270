"""`jitscope rules [CODE] [--markdown]`: the rule catalog, generated from the rules' docstrings."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="list the lint rules, or show one rule's documentation",
                       description="List every lint rule (code, name, severity, fix), or print one rule's docs.")
    p.add_argument("code", nargs="?", help="a rule code such as JS101: print its documentation")
    p.add_argument("--markdown", action="store_true", help="print the whole catalog as Markdown (docs/rules.md)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._lint import rule_catalog

    sys.stdout.write(rule_catalog(args.code, args.markdown))
    return 0
