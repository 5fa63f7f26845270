"""`jitscope merge RUN_DIR`: the per-process watch files of a jax.distributed job, merged; divergence named."""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_BUDGET
from ._common import add_json_option, rename, save_outputs, write_output
from ._outputs import Input, Output


def _merged(paths: list[str], args: argparse.Namespace) -> list[str]:
    """The files ``merge`` reads: each file given, and the watch files of each directory given."""
    from .._merge import files_in

    return [str(f) for f in files_in(paths)]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge", help="merge a jax.distributed job's per-process watch files; name where processes diverge",
        description="Read the watch files each process of a jax.distributed job wrote (jitscope watch "
                    "--events/--json run.jsonl gives run.p0.jsonl, run.p1.jsonl, ...; JITSCOPE=watch gives "
                    "jitscope-<pid>-<host>-<random>.*.p<i>.*), put every process's compile sequence side by side and name the "
                    "first compile where they differ: which processes, the function, call site, signature, "
                    "program fingerprint and cache hit/miss.")
    p.add_argument("paths", nargs="+", metavar="RUN_DIR", action=Input, what="a merged file", kind="run", files=_merged,
                   recorded=True, help="the directory of the per-process files (or the files)")
    add_json_option(p)
    p.add_argument("--timeline", metavar="PATH", action=Output,
                   help="write a Perfetto timeline with one process track per JAX process (old name --trace)")
    rename(p, "--trace", "--timeline")
    p.add_argument("--fail-on-divergence", action="store_true",
                   help="exit 3 when the processes compiled different programs (a program divergence)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._merge import merge
    from ..render import merge_trace, show

    result = merge(*args.paths)
    show(result)
    save_outputs(result, args)
    if args.timeline:
        write_output(args.timeline, merge_trace.render(result) + "\n")
    if args.fail_on_divergence and result.program_divergence is not None:
        print(f"jitscope: merge --fail-on-divergence: processes diverge at compile "
              f"#{result.program_divergence.position + 1}", file=sys.stderr)
        return EXIT_BUDGET
    return 0
