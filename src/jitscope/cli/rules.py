"""`jitscope rules [CODE] [--markdown]`: the rule catalog, generated from the rules' docstrings."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="list the lint rules and watch's runtime codes, or show one code's documentation",
                       description="List every lint rule (code, name, severity, fix) and every runtime finding "
                                   "code of `jitscope watch` (JWxxx), or print one code's docs.")
    p.add_argument("code", nargs="?", help="a code such as JS101 or JW201: print its documentation")
    p.add_argument("--markdown", action="store_true", help="print the whole catalog as Markdown (docs/rules.md; "
                   "with --runtime, docs/runtime-findings.md)")
    p.add_argument("--runtime", action="store_true", help="only watch's runtime finding codes (JWxxx)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._lint import rule_catalog
    from .._watch import runtime_catalog

    code = (args.code or "").upper()
    if args.runtime or code.startswith("JW"):
        sys.stdout.write(runtime_catalog(args.code, args.markdown))
    elif args.code or args.markdown:
        sys.stdout.write(rule_catalog(args.code, args.markdown))
    else:
        sys.stdout.write(rule_catalog(None, False) + "\nRuntime findings of `jitscope watch` "
                         "(`jitscope rules JW201` for one):\n" + runtime_catalog(None, False))
    return 0
