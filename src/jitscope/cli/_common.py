"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

import argparse


def add_json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", metavar="PATH", help="write the whole result as JSON (schema: docs/json-schema.md)")


def add_call_options(p: argparse.ArgumentParser) -> None:
    """--arg / --static / --args-from / --seed, as parsed by jitscope.targets.build_call."""
    p.add_argument("--arg", action="append", metavar="SPEC", default=[],
                   help="positional argument in jaxpr notation (f32[1000,1000], i32[]) or a Python literal; repeat per arg")
    p.add_argument("--static", action="append", metavar="NAME=VALUE", default=[],
                   help="keyword argument passed as a static value (Python literal)")
    p.add_argument("--args-from", metavar="MOD:FACTORY", help="call FACTORY() (or FACTORY(seed=...)) for the arguments")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")
