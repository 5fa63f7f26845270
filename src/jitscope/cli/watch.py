"""`jitscope watch [options] script.py [args...]` / `jitscope watch [options] -m module [args...]`."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

from ..errors import EXIT_BUDGET, JitscopeError, UsageError
from ..model import EVIDENCE_DEFAULT_PATH
from ._common import add_json_option, count, rename, save_outputs, seconds, write_output
from ._outputs import Input, Output, module_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "watch", help="run a program and record every jit trace/compile: why, cost, fix",
        description="Run a Python program as `python` would and record every trace, lowering and compile of "
                    "its jitted functions: where, why (reason for each recompile), what it cost, and how to "
                    "fix it. Options go before the script; everything after the script (or -m MODULE) is "
                    "passed to the program.")
    p.add_argument("--events", metavar="PATH", action=Output, help="write each compile as a JSON line, as it happens")
    p.add_argument("--timeline", metavar="PATH", action=Output,
                   help="write the compiles as a timeline: Chrome/Perfetto trace-event JSON (old name --trace)")
    rename(p, "--trace", "--timeline")
    add_json_option(p)
    p.add_argument("--max-compiles", type=count(0), metavar="N",
                   help="exit 3 if the program compiles its jitted functions more than N times")
    p.add_argument("--fail-on-recompile", action="store_true",
                   help="exit 3 if any function compiles more than once (lists the recompiles)")
    p.add_argument("--no-explain", action="store_true",
                   help="do not turn on jax_explain_cache_misses (drops JAX's own explanation text)")
    p.add_argument("--dump", metavar="DIR", action=Output, form="dir",
                   help="write each compile's jaxpr, StableHLO and optimised HLO into DIR, with index.json "
                        "(linked from the --html report)")
    p.add_argument("--slow-compile", type=seconds, default=1.0, metavar="SECONDS",
                   help="report a backend compile that takes more CPU seconds than this and is slow for its "
                        "size, with its cause (JW402; default 1)")
    p.add_argument("--no-findings", action="store_true",
                   help="do not analyse traces for runtime findings (failed traces, trace-time side effects, "
                        "captured constants, unrolled loops, slow compiles: `jitscope rules --runtime`)")
    p.add_argument("--live", action="store_true",
                   help="print one line (to stderr) per recompile as it happens, with its reason and call site, "
                        "and one per duplicate compile (JW403/JW404)")
    p.add_argument("--stall-after", type=seconds, default=None, metavar="SECONDS",
                   help="name a trace, lowering, compile or first execution still running after SECONDS (function, phase, "
                        f"time so far, your stack), again at each doubling; default off, {LIVE_STALL_AFTER:g} "
                        "with --live. SIGUSR1 then dumps every thread's stack (faulthandler) to stderr, or "
                        "beside --events as EVENTS.stacks.txt")
    p.add_argument("--peer-timeout", type=_seconds_or_off, default=None, metavar="SECONDS",
                   help="in a jax.distributed job: name a program this process compiled that a peer has not "
                        "compiled after SECONDS (the hang case; default 60, 0: off). Outputs are named per "
                        "process (run.p0.jsonl) and process 0 prints where the processes' compiles diverge")
    p.add_argument("--warmup", metavar="SCRIPT", action=Input, what="the warm-up script", kind="script",
                   help="check a warm-up script: run SCRIPT first in the same process (as `python SCRIPT`), then "
                        "the program; every compile the program still makes is one the warm-up missed (listed, "
                        "exit 3). Write one with `jitscope warmup RUN.json -o SCRIPT`")
    p.add_argument("--trace-evidence", nargs="?", const=None, default=None, metavar="PATH",
                   action=_EvidenceOutput,
                   help="record which of the program's own functions ran under a JAX trace (jit, vmap, grad, "
                        "scan bodies, ...) and which parameters were tracers, and write it to PATH (default "
                        f"{EVIDENCE_DEFAULT_PATH}, where `jitscope lint` looks for it). Costs only while JAX "
                        "traces; off by default. `--trace-evidence train.py` (nothing after it) runs train.py")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary at exit")
    p.add_argument("-m", dest="module", nargs=argparse.REMAINDER, metavar="MODULE", action=Input,
                   what="the watched program", kind="module",
                   files=lambda value, args: [module_file(value[0])] if value else [],
                   help="run a module as `python -m MODULE [args...]`")
    p.add_argument("target", nargs=argparse.REMAINDER, metavar="script.py [args...]", action=Input,
                   what="the watched program", kind="script",
                   files=lambda value, args: [v for v in value if v != "--"][:1],
                   help="the program and its arguments")
    p.set_defaults(func=run)


class _EvidenceOutput(Output):
    """``--trace-evidence [PATH]``: without PATH the default; the value it took is kept aside (``run`` gives
    it back to the program when nothing followed it: ``--trace-evidence train.py``)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        namespace.evidence_value = values
        super().__call__(parser, namespace, EVIDENCE_DEFAULT_PATH if values is None else values, option_string)


def run(args: argparse.Namespace) -> int:
    if args.target and args.target[0] == "--":
        args.target = args.target[1:]
    taken = getattr(args, "evidence_value", None)
    if taken is not None and not args.target and not args.module:  # `watch --trace-evidence train.py`:
        args.target = [taken]  # the optional PATH took the program; the evidence goes to the default
        args.trace_evidence = os.path.abspath(EVIDENCE_DEFAULT_PATH)
    if args.module:
        target, prog_args, is_module = args.module[0], list(args.module[1:]), True
    elif args.target:
        if args.target[0].startswith("-"):
            raise UsageError(f"watch: unknown option {args.target[0]} (options go before the script)")
        target, prog_args, is_module = args.target[0], list(args.target[1:]), False
    else:
        raise UsageError("watch: give a script (jitscope watch script.py) or a module (jitscope watch -m pkg.mod)")

    from .._watch import check_target, pid_path, watch_program

    check_target(target, is_module)
    # The program may chdir: outputs are absolute already (cli.main's guard made them so, and refused
    # outputs onto the program itself, or unwritable ones, before the program runs).
    if args.dump is not None:
        from .._watch import check_dump_dir

        args.dump = check_dump_dir(args.dump)  # a file or an unwritable directory: exit 2 before running
    parent = os.getpid()
    stall_after = args.stall_after if args.stall_after is not None else (LIVE_STALL_AFTER if args.live else None)
    with _stack_dumps(args.events if stall_after is not None else None, enabled=stall_after is not None):
        result = watch_program(target, prog_args, module=is_module, events=args.events,
                               explain=not args.no_explain, max_compiles=args.max_compiles,
                               fail_on_recompile=args.fail_on_recompile,
                               listeners=[_print_live] if args.live else (), dump=args.dump,
                               findings=not args.no_findings, slow_compile=args.slow_compile,
                               stall_after=stall_after, on_stall=_print_stall, warmup=args.warmup,
                               on_duplicate=_print_duplicate if args.live else None,
                               trace_evidence=args.trace_evidence is not None,
                               **({} if args.peer_timeout is None else {"peer_timeout": args.peer_timeout}))
    code = result.exit_code or 0
    if result.process_index is not None:  # a jax.distributed job: N processes were given these paths
        from .._watch import process_path

        for name in ("json", "html", "timeline", "trace_evidence"):
            if getattr(args, name):
                setattr(args, name, process_path(getattr(args, name), result.process_index))
    if os.getpid() != parent:  # a child the program forked ended by returning: never the parent's files
        for name in ("json", "html", "timeline", "events", "trace_evidence"):
            if getattr(args, name):
                setattr(args, name, pid_path(getattr(args, name)))
        _write_outputs(result, args, exclusive=True)
        print(f"jitscope: forked child {os.getpid()} of {parent}: {len(result.events)} compiles"
              + (f"; events in {args.events}" if args.events else ""), file=sys.stderr)
        return code
    _write_outputs(result, args)
    if not args.quiet:
        from ..render import show

        show(result, sys.stderr)  # the summary lists budget breaches itself
    if code:
        return code
    if result.violations:
        if args.quiet:
            for v in result.violations:
                print(f"jitscope: budget exceeded: {v}", file=sys.stderr)
        return EXIT_BUDGET
    return 0


def _seconds_or_off(text: str) -> float:
    """``--peer-timeout``: a positive number of seconds, or 0 for off."""
    return 0.0 if text.strip() in ("0", "0.0", "off") else seconds(text)


LIVE_STALL_AFTER = 10.0  # seconds: --live turns the stall watchdog on at this threshold


def _say(line: str) -> None:
    """A live line on stderr; a closed or full stderr never reaches the program's call (it runs on)."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _print_stall(stall) -> None:  # type: ignore[no-untyped-def]
    from .._watch import stall_line

    _say(stall_line(stall))


@contextlib.contextmanager
def _stack_dumps(events: str | None, enabled: bool) -> Iterator[None]:
    """While the watchdog runs, SIGUSR1 dumps every thread's stack (faulthandler: it works even when the
    main thread is stuck inside XLA) to ``EVENTS.stacks.txt`` beside the events file, else to stderr."""
    if not enabled or not hasattr(signal, "SIGUSR1") or threading.current_thread() is not threading.main_thread():
        yield
        return
    import faulthandler

    out = None
    try:
        out = open(f"{events}.stacks.txt", "a", encoding="utf-8") if events else sys.stderr  # noqa: SIM115
        faulthandler.register(signal.SIGUSR1, file=out, all_threads=True, chain=False)
    except (OSError, ValueError, RuntimeError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        faulthandler.unregister(signal.SIGUSR1)
        if out is not None and out is not sys.stderr:
            out.close()


def _print_duplicate(finding) -> None:  # type: ignore[no-untyped-def]
    from .._watch import duplicate_line

    _say(duplicate_line(finding))


def _print_live(event) -> None:  # type: ignore[no-untyped-def]
    from .._watch import live_line

    line = live_line(event)
    if line is not None:
        _say(line)


def _write_outputs(result, args: argparse.Namespace, exclusive: bool = False) -> None:  # type: ignore[no-untyped-def]
    """--json, --html, --timeline and --trace-evidence; a failure is printed (``jitscope: cannot write ...``), not raised,
    so the summary and the program's exit code still come through. ``exclusive``: per-process names (a
    forked child's), each created new, never through a link or over a file."""
    from ..render import trace

    if exclusive:
        from .._files import write_exclusive
        from ..render import render

        for name, text in (("json", lambda: result.to_json() + "\n"), ("html", lambda: render(result, "html")),
                           ("timeline", lambda: trace.render(result) + "\n"),
                           ("trace_evidence", lambda: result.trace_evidence.file_text())):
            path = getattr(args, name)
            if path and (name != "trace_evidence" or result.trace_evidence is not None):
                try:
                    write_exclusive(path, text())
                except OSError as e:
                    print(f"jitscope: cannot write {path}: {e.strerror or e}", file=sys.stderr)
        return
    try:
        save_outputs(result, args)
        if args.timeline:
            write_output(args.timeline, trace.render(result) + "\n")
        if args.trace_evidence and result.trace_evidence is not None:  # None: this JAX has no trace hook
            write_output(args.trace_evidence, result.trace_evidence.file_text())
    except JitscopeError as e:  # write_output and Result.save report an OSError this way
        print(f"jitscope: {e}", file=sys.stderr)
