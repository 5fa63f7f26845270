"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_json_option(p: argparse.ArgumentParser) -> None:
    """``--json PATH`` and ``--html PATH``: the whole result as JSON, and as a self-contained HTML report."""
    p.add_argument("--json", metavar="PATH", help="write the whole result as JSON (schema: docs/json-schema.md)")
    p.add_argument("--html", metavar="PATH",
                   help="also write a self-contained HTML report (inline SVG charts, no network access)")


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse unwritable ``--json`` / ``--html`` destinations before anything is measured or run."""
    check_writable(args.json)
    check_writable(args.html, "--html")


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


def add_call_options(p: argparse.ArgumentParser) -> None:
    """--arg / --static / --args-from / --seed, as parsed by jitscope.targets.build_call."""
    p.add_argument("--arg", action="append", metavar="SPEC", default=[],
                   help="positional argument in jaxpr notation (f32[1000,1000], i32[]) or a Python literal; repeat per arg")
    p.add_argument("--static", action="append", metavar="NAME=VALUE", default=[],
                   help="keyword argument passed as a static value (Python literal)")
    p.add_argument("--args-from", metavar="MOD:FACTORY", help="call FACTORY() (or FACTORY(seed=...)) for the arguments")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")


def check_writable(path: str | os.PathLike[str] | None, option: str = "--json", label: str | None = None) -> None:
    """Fail early (``UsageError``, exit 2) when ``path`` cannot be written, BEFORE measuring.

    The parent directory must exist and be writable, or be creatable (its nearest existing
    ancestor is a writable directory); ``path`` itself must not be a directory. The message
    reads ``OPTION LABEL: cannot write PATH: reason`` (``label`` defaults to ``path``).
    """
    from ..errors import UsageError

    if not path:
        return
    p = Path(path)
    option = f"{option} {label if label is not None else path}"
    if p.is_dir():
        raise UsageError(f"{option}: cannot write {path}: is a directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise UsageError(f"{option}: cannot write {path}: permission denied")
    parent = p.parent if str(p.parent) else Path(".")
    ancestor = parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"{option}: cannot write {path}: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: cannot write {path}: directory {ancestor} is not writable")
