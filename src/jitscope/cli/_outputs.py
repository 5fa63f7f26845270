"""Output paths are checked before anything runs: never an input, never twice, and really writable.

Every command calls ``guard_outputs`` once, before it measures or runs anything. Paths are
compared after ``realpath`` (symlinks, ``..``, relative paths), so ``--events prog.py prog.py``,
``--json`` onto the target module, ``lint -o`` onto a linted file or two options naming the same
file are refused with exit 2. Writability is tried, not guessed: ``os.access`` says yes to
everything as root (the usual case in containers and CI), so an existing file is opened for
appending (which changes nothing) and a new one is created beside its target and removed.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import UsageError
from ..targets import module_file as module_file

Inputs = Mapping[str, Iterable[str | os.PathLike[str] | None]]


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def guard_outputs(outputs: Mapping[str, str | os.PathLike[str] | None], inputs: Inputs) -> dict[str, str]:
    """Refuse (``UsageError``, exit 2) unsafe outputs; return each given output as an absolute path.

    Args:
        outputs: option name (``--json``) -> path, None when not given. A name ending in ``/``
            is a directory output (``--dump DIR/``): it must not contain an input.
        inputs: what the run reads, by what it is (``"the watched script"`` -> paths).
    """
    seen_inputs: dict[str, str] = {}
    for what, paths in inputs.items():
        for p in paths:
            if p:
                seen_inputs.setdefault(_real(p), what)
    taken: dict[str, str] = {}
    out: dict[str, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        is_dir = option.endswith("/")
        option = option.rstrip("/")
        real = _real(path)
        if is_dir:
            for inp, what in seen_inputs.items():
                if inp == real:
                    raise UsageError(f"{option} {path}: is {what}; refusing to write into it")
        elif real in seen_inputs:
            raise UsageError(f"{option} {path}: is {seen_inputs[real]}; refusing to overwrite it")
        if real in taken and not _is_special(real):  # /dev/null may take every output
            raise UsageError(f"{option} {path}: also given to {taken[real]}; each output needs its own file")
        taken[real] = option
        if not is_dir:
            try_write(path, f"{option} {path}")
        out[option] = os.path.abspath(os.fspath(path))
    return out


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
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".jitscope-probe", dir=ancestor)
        os.close(fd)
        os.unlink(probe)
    except UsageError:
        raise
    except OSError as e:
        why = e.strerror or str(e)
        raise UsageError(f"{option}: cannot write {path}: {why[:1].lower()}{why[1:]}") from None
