"""Every path option is declared as what it is, and one guard checks every output before anything runs.

An option that names a file is added with ``action=Output`` (a file the command writes; ``form="dir"``
for a directory, ``form="prefix"`` for ``PREFIX.png``/``PREFIX.svg``) or ``action=Input`` (a file the
command reads; ``files`` turns the option's value into the files, as ``mod:fn`` -> the module's source,
``recorded=True`` adds the source files a watch run or result recorded: the program, the definition
files of its functions). ``cli.main`` calls ``guard_parsed`` once, after parsing and before the
command runs, for every command alike: no output may be an input, the files an input recorded, or
another output, and each must really be writable. A new option is guarded the moment it is declared;
``tests/test_cli_faults.py`` walks the parser and fails on a string option that is declared as neither.

Paths are compared after ``realpath`` (symlinks, ``..``, relative paths). Writability is tried, not
guessed: ``os.access`` says yes to everything as root (the usual case in containers and CI), so an
existing file is opened for appending (which changes nothing) and a new one is created beside its
target and removed. Outputs are made absolute in the namespace (the watched program may chdir).
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..errors import UsageError

Inputs = Mapping[str, Iterable[str | os.PathLike[str] | None]]
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any

    Files = Callable[[Any, argparse.Namespace], Iterable[str | os.PathLike[str] | None]]


def module_file(text: str | None) -> str | None:
    """``targets.module_file``, imported when a command that takes a ``MOD:FN`` target runs (not for lint)."""
    from ..targets import module_file as find

    return find(text)


class PathOption(argparse.Action):
    """An option (or positional) that names files; stores like ``store`` (``append=True``: like ``append``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, append: bool = False, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.append = append

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if self.append:
            values = [*(getattr(namespace, self.dest, None) or []), values]
        setattr(namespace, self.dest, values)

    @property
    def label(self) -> str:
        """How messages name it: its first option string (``--json``, ``-o``), or its metavar."""
        if self.option_strings:
            return self.option_strings[0]
        return str(self.metavar or self.dest)


class Output(PathOption):
    """A file the command writes (``form="file"``), a directory it writes into (``"dir"``), or a prefix
    it adds ``suffixes`` to (``"prefix"``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, form: str = "file",
                 suffixes: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        if form not in ("file", "dir", "prefix"):
            raise ValueError(f"unknown output form {form!r}")
        self.form = form
        self.suffixes = suffixes

    def paths(self, value: Any) -> list[tuple[str, bool]]:
        """``(path, is a directory)`` of each file this value writes."""
        if not value:
            return []
        if self.form == "prefix":
            return [(f"{value}{suffix}", False) for suffix in self.suffixes]
        return [(os.fspath(value), self.form == "dir")]


INPUT_KINDS = {
    "module": "a MOD:FN target (a module name or path/to/file.py, and a name in it)",
    "script": "a Python program (watch's script, a warm-up script)",
    "source": "Python source files or directories (lint)",
    "config": "a pyproject.toml",
    "run": "a saved watch run: a --json result or an --events file",
    "result": "a saved result of any command (--json)",
    "evidence": "trace evidence of a run: a trace-evidence file, a watch result carrying one, or a directory holding one",
}


class Input(PathOption):
    """Files the command reads: ``what`` names them in a refusal (``the watched program``); ``kind`` says what
    they hold (``INPUT_KINDS``: the fault tests build a valid one of each and break it); ``files(value,
    args)`` are the files (default: the value itself, or each item of a list); ``recorded``: a watch run
    or result, whose recorded source files (program, definition files) are inputs too."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, what: str, kind: str,
                 files: Files | None = None, recorded: bool = False, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        if kind not in INPUT_KINDS:
            raise ValueError(f"unknown input kind {kind!r}")
        self.what = what
        self.kind = kind
        self.files = files
        self.recorded = recorded

    def paths(self, value: Any, args: argparse.Namespace) -> list[str]:
        if value is None:
            return []
        if self.files is not None:
            found = self.files(value, args)
        else:
            found = value if isinstance(value, list) else [value]
        return [os.fspath(f) for f in found if f]


def guard_parsed(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The one output guard: every ``Output`` of the chosen command checked against every ``Input`` (and
    what the inputs recorded) and every other output, and tried for writing; outputs made absolute.

    Raises:
        UsageError: an output that is an input or another output, or that cannot be written.
    """
    actions = command_actions(parser, args)
    inputs: dict[str, list[str]] = {}
    for action in actions:
        if isinstance(action, Input):
            files = action.paths(getattr(args, action.dest, None), args)
            inputs.setdefault(action.what, []).extend(files)
            if action.recorded:
                from ..results.watch_run import recorded_sources

                what = f"a source file {action.what} recorded"
                for f in files:
                    inputs.setdefault(what, []).extend(recorded_sources(f))
    outputs: list[tuple[str, str, bool]] = []
    for action in actions:
        if isinstance(action, Output):
            value = getattr(args, action.dest, None)
            outputs += [(action.label, path, is_dir) for path, is_dir in action.paths(value)]
            if value:
                setattr(args, action.dest, os.path.abspath(os.fspath(value)))
    check_outputs(outputs, inputs)


def command_actions(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[argparse.Action]:
    """The actions of the subcommand ``args.command`` (the parser's own when it has none)."""
    for action in parser._actions:  # argparse keeps subparsers here and nowhere public
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices.get(getattr(args, "command", None) or "")
            return list(sub._actions) if sub is not None else []
    return list(parser._actions)


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def check_outputs(outputs: Sequence[tuple[str, str, bool]], inputs: Inputs) -> None:
    """Refuse (``UsageError``, exit 2) unsafe outputs.

    Args:
        outputs: ``(option, path, is a directory)``; a directory must not be an input.
        inputs: what the run reads, by what it is (``"the watched script"`` -> paths).
    """
    seen_inputs: dict[str, str] = {}
    for what, paths in inputs.items():
        for p in paths:
            if p:
                seen_inputs.setdefault(_real(p), what)
    taken: dict[str, str] = {}
    for option, path, is_dir in outputs:
        real = _real(path)
        if real in seen_inputs:
            verb = "write into it" if is_dir else "overwrite it"
            raise UsageError(f"{option} {path}: is {seen_inputs[real]}; refusing to {verb}")
        if real in taken and not _is_special(real):  # /dev/null may take every output
            raise UsageError(f"{option} {path}: also given to {taken[real]}; each output needs its own file")
        taken[real] = option
        if not is_dir:
            try_write(path, f"{option} {path}")


def guard_outputs(outputs: Mapping[str, str | os.PathLike[str] | None], inputs: Inputs) -> dict[str, str]:
    """``check_outputs`` for a mapping of option -> path (a name ending in ``/`` is a directory); each
    given output as an absolute path. For callers outside the command line's parser."""
    listed = [(option.rstrip("/"), os.fspath(path), option.endswith("/")) for option, path in outputs.items() if path]
    check_outputs(listed, inputs)
    return {option: os.path.abspath(path) for option, path, _ in listed}


def _is_special(path: str) -> bool:
    """A character device or FIFO (``/dev/null``, a named pipe): outputs are written into it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def try_write(path: str | os.PathLike[str], option: str) -> None:
    """Prove ``path`` can be written, changing nothing: an existing file is opened for appending; for a
    new one, a probe file is created and removed in the nearest existing directory on its path (the
    missing directories are created only when the output is really written)."""
    from pathlib import Path  # here: `jitscope lint` writing no file does not import it

    p = Path(os.path.abspath(os.fspath(path)))
    if p.is_dir():
        raise UsageError(f"{option}: cannot write {path}: is a directory")
    try:
        if p.exists():
            if _is_special(str(p)):  # /dev/null, a FIFO: written to in place, never replaced
                os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))  # a FIFO with no reader: ENXIO, refused
                return
            if not p.is_file():
                raise UsageError(f"{option}: cannot write {path}: not a regular file")
            with open(p, "a", encoding="utf-8"):
                pass  # append mode: opens for writing without truncating
            return
        ancestor = p.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise UsageError(f"{option}: cannot write {path}: {ancestor} is not a directory")
        import tempfile  # here: only a new output file's directory is probed

        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".jitscope-probe", dir=ancestor)
        os.close(fd)
        os.unlink(probe)
    except UsageError:
        raise
    except OSError as e:
        why = e.strerror or str(e)
        raise UsageError(f"{option}: cannot write {path}: {why[:1].lower()}{why[1:]}") from None
