"""`jitscope merge RUN_DIR`: the per-process watch files of a jax.distributed job, merged; divergence named."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import EXIT_BUDGET
from ._common import add_json_option, check_outputs, save_outputs, write_output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge", help="merge a jax.distributed job's per-process watch files; name where processes diverge",
        description="Read the watch files each process of a jax.distributed job wrote (jitscope watch "
                    "--events/--json run.jsonl gives run.p0.jsonl, run.p1.jsonl, ...; JITSCOPE=watch gives "
                    "jitscope-<pid>.*.p<i>.*), put every process's compile sequence side by side and name the "
                    "first compile where they differ: which processes, the function, call site, signature, "
                    "program fingerprint and cache hit/miss.")
    p.add_argument("paths", nargs="+", metavar="RUN_DIR", help="the directory of the per-process files (or the files)")
    add_json_option(p)
    p.add_argument("--trace", metavar="PATH", help="write a Perfetto trace with one process track per JAX process")
    p.add_argument("--fail-on-divergence", action="store_true",
                   help="exit 3 when the processes compiled different programs (a program divergence)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .._merge import SUFFIXES, merge
    from ..render import merge_trace, show

    read = [str(f) for p in map(Path, args.paths) for f in (sorted(p.iterdir()) if p.is_dir() else [p])
            if not p.is_dir() or (f.is_file() and f.suffix in SUFFIXES)]
    paths = check_outputs(args, {"a merged file": read}, trace=args.trace)
    args.json, args.html, args.trace = paths.get("--json"), paths.get("--html"), paths.get("--trace")
    result = merge(*args.paths)
    show(result)
    save_outputs(result, args)
    if args.trace:
        write_output(args.trace, merge_trace.render(result) + "\n")
    if args.fail_on_divergence and result.program_divergence is not None:
        print(f"jitscope: merge --fail-on-divergence: processes diverge at compile "
              f"#{result.program_divergence.position + 1}", file=sys.stderr)
        return EXIT_BUDGET
    return 0
