"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path


def add_json_option(p: argparse.ArgumentParser) -> None:
    """``--json PATH`` and ``--html PATH``: the whole result as JSON, and as a self-contained HTML report."""
    p.add_argument("--json", metavar="PATH", help="write the whole result as JSON (schema: docs/json-schema.md)")
    p.add_argument("--html", metavar="PATH",
                   help="also write a self-contained HTML report (inline SVG charts, no network access)")


def check_outputs(args: argparse.Namespace, *outputs: tuple[str, str | None] | tuple[str, str | None, str],
                  inputs: Iterable[tuple[str, str | None]] = (), trees: Sequence[str] = ()) -> None:
    """Refuse, before anything is measured or run, a ``--json`` / ``--html`` / other output (``outputs``:
    ``(option, path)`` or ``(option, label, path)``) that cannot be written, that is one of the run's
    ``inputs`` (``(what, path)``) or a ``*.py`` file under ``trees``, or that is another output of the run.
    See ``cli/_outputs.py``."""
    from ._outputs import guard_outputs

    guard_outputs([("--json", getattr(args, "json", None)), ("--html", getattr(args, "html", None)), *outputs],
                  inputs, trees)


def target_inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """The module files a run of inspect / compare / scale reads: ``target``, ``--inner``,
    ``--variant NAME=MOD:FN`` and ``--args-from``, as ``(what, path)`` for :func:`check_outputs`."""
    from ..targets import module_file

    found: list[tuple[str, str | None]] = []
    if getattr(args, "target", None):
        found.append(("the target module", module_file(args.target)))
    if getattr(args, "inner", None):
        found.append(("the --inner module", module_file(args.inner)))
    for item in getattr(args, "variant", None) or []:
        found.append(("the --variant module", module_file(item.partition("=")[2])))
    if getattr(args, "args_from", None):
        found.append(("the --args-from module", module_file(args.args_from)))
    return found


def watched_inputs(target: str, module: bool) -> list[tuple[str, str | None]]:
    """The file ``jitscope watch`` runs (the script, or the module's source), for :func:`check_outputs`."""
    if not module:
        return [("the watched script", target)]
    from ..targets import module_file

    return [("the watched module", module_file(target))]


def write_output(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8), creating its parent directories.

    Raises:
        UsageError: the file cannot be written (``cannot write PATH: reason``).
    """
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


def one_line(text: object) -> str:
    """Fold a multi-line message (an exception's text, a user program's error) into one ``jitscope:`` line."""
    return " ".join(str(text).split())


def seconds(text: str) -> float:
    """argparse type of a time budget: a finite number of seconds > 0 (``nan``, ``inf``, ``0`` refused)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got '{text}'")
    return value


def count(minimum: int) -> Callable[[str], int]:
    """argparse type of an integer option that must be ``>= minimum`` (``--repeats``, ``--seed``, ...)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def add_call_options(p: argparse.ArgumentParser) -> None:
    """--arg / --static / --args-from / --seed, as parsed by jitscope.targets.build_call."""
    p.add_argument("--arg", action="append", metavar="SPEC", default=[],
                   help="positional argument in jaxpr notation (f32[1000,1000], i32[]) or a Python literal; repeat per arg")
    p.add_argument("--static", action="append", metavar="NAME=VALUE", default=[],
                   help="keyword argument passed as a static value (Python literal)")
    p.add_argument("--args-from", metavar="MOD:FACTORY", help="call FACTORY() (or FACTORY(seed=...)) for the arguments")
    p.add_argument("--seed", type=count(0), default=0, help="seed for random inputs (default 0)")


def check_writable(path: str | os.PathLike[str] | None, option: str = "--json", label: str | None = None) -> None:
    """Fail early (``UsageError``, exit 2) when ``path`` cannot be written, BEFORE measuring, by trying.

    The message reads ``OPTION LABEL: cannot write PATH: reason`` (``label`` defaults to ``path``).
    Prefer :func:`check_outputs`, which also refuses outputs that are inputs of the run.
    """
    from ._outputs import try_write

    if path:
        try_write(os.fspath(path), option, label)
