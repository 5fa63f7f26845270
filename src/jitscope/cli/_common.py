"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
from collections.abc import Iterator

from ._outputs import Input, Output, module_file, try_write


def add_json_option(p: argparse.ArgumentParser) -> None:
    """``--json PATH`` and ``--html PATH``: the whole result as JSON, and as a self-contained HTML report."""
    p.add_argument("--json", action=Output, metavar="PATH",
                   help="write the whole result as JSON (schema: docs/json-schema.md)")
    p.add_argument("--html", action=Output, metavar="PATH",
                   help="also write a self-contained HTML report (inline SVG charts, no network access)")


def module_input(what: str) -> dict[str, object]:
    """``add_argument`` keywords of an option naming a ``MOD:FN`` target: its module's source is an input."""
    return {"action": Input, "what": what, "kind": "module", "files": lambda value, args: [module_file(value)]}


def write_output(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8), creating its parent directories.

    Raises:
        UsageError: the file cannot be written (``cannot write PATH: reason``).
    """
    from pathlib import Path

    from ..errors import UsageError

    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None


def save_outputs(result: object, args: argparse.Namespace) -> None:
    """Write ``--json`` and ``--html`` (after the terminal output); a failure is one-line ``UsageError``."""
    if args.json:
        result.save(args.json)  # type: ignore[attr-defined]
    if args.html:
        from ..render import render

        write_output(args.html, render(result, "html"))  # type: ignore[arg-type]


def add_call_options(p: argparse.ArgumentParser) -> None:
    """--arg / --static / --args-from / --seed, as parsed by jitscope.targets.build_call."""
    p.add_argument("--arg", action="append", metavar="SPEC", default=[],
                   help="positional argument in jaxpr notation (f32[1000,1000], i32[]) or a Python literal; repeat per arg")
    p.add_argument("--static", action="append", metavar="NAME=VALUE", default=[],
                   help="keyword argument passed as a static value (Python literal)")
    p.add_argument("--args-from", metavar="MOD:FACTORY", **module_input("the --args-from module"),
                   help="call FACTORY() (or FACTORY(seed=...)) for the arguments")
    p.add_argument("--seed", type=count(0), default=0, help="seed for random inputs (default 0)")


def check_writable(path: str | os.PathLike[str] | None, option: str = "--json", label: str | None = None) -> None:
    """Fail early (``UsageError``, exit 2) when ``path`` cannot be written, BEFORE measuring (a real write)."""
    if path:
        try_write(path, f"{option} {label if label is not None else path}")


def count(minimum: int = 0):  # noqa: ANN201 - an argparse type
    """An argparse type: an integer >= ``minimum`` (``--jobs 0``, ``--seed -1`` are one-line errors)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below the minimum {minimum}")
        return value

    parse.__name__ = "integer"
    return parse


def seconds(text: str) -> float:
    """An argparse type: a finite, positive number of seconds (``nan``, ``inf``, ``0``, ``-1`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def add_seconds_option(p: argparse.ArgumentParser, name: str, old: str, dest: str, default: float, help: str) -> None:
    """A seconds option under its name, and under its old name ``old``, hidden from ``--help`` (a stable
    spelling keeps working). ``--budget`` became ``--sample-seconds``: in watch and the pytest plugin a
    "budget" is a compile count, so the name now says one thing across commands (issue #26)."""
    p.add_argument(name, dest=dest, type=seconds, default=default, metavar="SECONDS", help=help)
    rename(p, old, name)


class Renamed(argparse.Action):
    """A flag's old spelling (``rename``): hidden from ``--help``, it does what the new flag does and leaves a
    one-line note in ``args.renamed``; ``cli.main`` prints the notes after the command, never beside a
    one-line error (a bad input stays one line)."""

    def __init__(self, option_strings: list[str], dest: str, *, new: argparse.Action, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=new.nargs, const=new.const, type=new.type, choices=new.choices,
                         metavar=new.metavar, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        name = self.new.option_strings[-1]
        note = f"{option_string} is a deprecated spelling of {name} (docs/cli.md); it still works"
        namespace.__dict__.setdefault("renamed", []).append(note)
        self.new(parser, namespace, values, name)


def rename(p: argparse.ArgumentParser, old: str, new: str) -> None:
    """Accept ``old`` as a deprecated spelling of the already added option ``new`` (issue #26: one meaning
    per flag name; the stable CLI keeps its old spellings working)."""
    action = next(a for a in p._actions if new in a.option_strings)
    p.add_argument(old, dest=action.dest, action=Renamed, new=action)


def add_progress_option(p: argparse.ArgumentParser) -> None:
    """``--no-progress``: no progress line on stderr (it is shown only when stderr is a terminal)."""
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr (shown only on a terminal)")


@contextlib.contextmanager
def progress(args: argparse.Namespace, command: str) -> Iterator[None]:
    """Show what ``command`` is doing (``_progress.stage`` announcements) on a terminal's stderr.

    A transient rich status line: "jitscope inspect: timing the compiled run (2.1 s)". Nothing when
    stderr is not a terminal (a pipe, a CI log) or with ``--no-progress``, so captured output is unchanged.
    """
    from .._progress import listening

    if getattr(args, "no_progress", False) or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    t0 = time.perf_counter()
    with Console(file=sys.stderr).status(f"jitscope {command}: starting") as status:

        def show(stage: str) -> None:
            status.update(f"jitscope {command}: {stage} ({time.perf_counter() - t0:.1f} s)")

        with listening(show):
            yield
