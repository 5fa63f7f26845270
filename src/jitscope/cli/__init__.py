"""The ``jitscope`` command line: parse, call the library, render, exit. Nothing else.

Each subcommand lives in ``cli/<command>.py`` with ``register(subparsers)`` that
adds its parser and sets ``func``; ``func(args) -> int`` returns the exit code.
Heavy imports (jax) happen inside ``func`` so ``jitscope lint`` and ``--help`` stay fast.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

from .._version import __version__
from ..errors import EXIT_USAGE, JitscopeError

COMMANDS = ("demo", "compare", "watch", "inspect", "scale", "lint", "rules", "report", "diff", "warmup", "merge", "doctor")


class _Parser(argparse.ArgumentParser):
    _checking = False

    def add_argument(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201 - argparse's own signature
        # argparse builds a help formatter on every add_argument, only to check the metavar against nargs, and
        # in add_subparsers, only to render the bare program name; a formatter asks shutil for the terminal's
        # width (shutil imports bz2, lzma and zlib: 3 ms of a one-file lint). Neither reads the width; help
        # and usage still get the terminal's (_get_formatter below).
        self._checking = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking = False

    def add_subparsers(self, **kwargs):  # noqa: ANN003, ANN201 - argparse's own signature
        self._checking = True
        try:
            return super().add_subparsers(**kwargs)
        finally:
            self._checking = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._checking:
            return self.formatter_class(prog=self.prog, width=80)
        return super()._get_formatter()

    def error(self, message: str) -> None:  # one line, exit 2, like every usage error (usage only with --help)
        where = self.prog.removeprefix("jitscope").strip()
        hint = f"jitscope {where} --help" if where else "jitscope --help"
        print(f"jitscope: {' '.join(message.split())} (see {hint})", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; ``only``: with that command's subparser alone (its module the only one imported)."""
    parser = _Parser(
        prog="jitscope",
        description="See what jax.jit does to your program, and what to do about it.",
    )
    parser.add_argument("--version", action="version", version=f"jitscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    args_given = sys.argv[1:] if argv is None else argv
    startup = _Startup(freeze=argv is None)  # the collector paused until the command runs
    try:
        # `jitscope lint ...` parses with lint's parser alone: the other commands' modules (and what they
        # import) stay unimported. Anything else (--help, --version, a misspelt command) gets the whole parser.
        parser = build_parser(args_given[0] if args_given and args_given[0] in COMMANDS else None)
        args = parser.parse_args(argv)
    except BaseException:
        startup.end()
        raise
    if not getattr(args, "func", None):
        startup.end()
        print(f"jitscope: give a command: {', '.join(COMMANDS)} (see jitscope --help)", file=sys.stderr)
        return EXIT_USAGE
    if args.command != "watch":  # watch's stdout is the program's: its encoding errors are its own
        _tolerant_stdout()
    measuring = args.command in ("demo", "compare", "watch", "inspect", "scale")
    try:
        from ._outputs import guard_parsed

        try:
            guard_parsed(parser, args)  # every output option of every command, before anything runs
        finally:
            startup.end()
        code = int(args.func(args) or 0)
    except JitscopeError as e:
        print(f"jitscope: {' '.join(str(e).split())}", file=sys.stderr)  # one line, whatever the cause said
        return e.exit_code
    except KeyboardInterrupt:
        print("jitscope: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as e:
        if not _own_import(e):
            raise
        # jitscope's own dependency is missing (a venv that has jitscope on PYTHONPATH but not its requirements):
        # whatever the command recorded was written before it rendered; say what to install, in one line.
        print(f"jitscope: a dependency of jitscope is missing: {e} (install jitscope with pip so its requirements "
              f"come with it, or pip install {e.name})", file=sys.stderr)
        return EXIT_USAGE
    except BaseException as e:  # a crash (or the program's SystemExit): on an untested JAX, say so first
        if measuring and not isinstance(e, SystemExit):
            _version_notice()
        raise
    for note in getattr(args, "renamed", ()):  # an old flag spelling (cli/_common.rename), after the command too
        print(f"jitscope: note: {note}", file=sys.stderr)
    if measuring:  # after the command, never beside a one-line error: bad input stays one line
        _version_notice()
    return code


def _own_import(e: ModuleNotFoundError) -> bool:
    """Whether the failed import was jitscope's own (the innermost frame with a source file, past the import
    system's own ``<frozen ...>`` frames and import hooks, is in this package), not the program's."""
    tb, last = e.__traceback__, None
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith("<"):
            last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return last is not None and os.path.abspath(last).startswith(here + os.sep)


class _Startup:
    """The CLI's start-up (the parser, the command's modules, the output checks: `jitscope lint` imports its
    whole engine there) runs with the cyclic garbage collector paused; ``end()`` puts it back as it was, before
    the command runs.

    Start-up allocates objects that live as long as the process (modules, classes, functions, tables), and the
    collector would scan them again and again: a young collection every 700 allocations, ~15 in a one-file
    lint, and the survivors again in the older generations. With ``freeze`` (``main()`` is the process's
    entry: the console script, ``python -m jitscope``), what start-up made moves to the permanent generation
    (``gc.freeze()``), never scanned again: not by the command's collections, not in the forked lint workers,
    and not by the interpreter's last collection at exit (that one cost ~12 ms of a one-file lint's ~75).
    The command's own objects are not frozen: its files are closed and its output flushed as before. A
    caller's own objects (``main(argv)`` inside a program or a test) are never frozen: with ``argv`` given the
    collector resumes and scans the start-up's objects once (docs/architecture.md, "What a command imports")."""

    def __init__(self, freeze: bool) -> None:
        self.freeze = freeze
        self.resume = gc.isenabled()
        gc.disable()

    def end(self) -> None:
        if self.resume:
            self.resume = False
            if self.freeze:
                gc.freeze()
            gc.enable()


def _version_notice() -> None:
    """Say once, on one line, when the installed JAX is outside the tested range (or lacks a hook)."""
    try:
        from .._jaxcompat import version_notice

        line = version_notice()
    except Exception:  # noqa: BLE001 - a notice must never stop a command (jax may be broken: it says so itself)
        return
    if line:
        print(f"jitscope: note: {line}", file=sys.stderr)


def _tolerant_stdout() -> None:
    """jitscope's own stdout writes a path that is not valid UTF-8 (a file name of undecodable bytes,
    ``surrogateescape``) escaped, as stderr already does, instead of dying of a UnicodeEncodeError."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):
            pass
