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
    from ..lint import docs
    from ..lint.registry import get_rule

    if args.markdown:
        sys.stdout.write(docs.rules_markdown())
    elif args.code:
        sys.stdout.write(docs.rule_text(get_rule(args.code)))
    else:
        sys.stdout.write(docs.rules_table())
    return 0
