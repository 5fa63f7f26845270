"""Where a run may write: every output path checked once, before anything is measured or run.

Every command's CLI module calls :func:`guard_outputs` with the outputs it will write and the
inputs it will read. An output is refused (``UsageError``, exit 2, one line) when:

- its resolved path (``realpath``: symlinks, ``..`` and case of the same file all count) is an
  input of the run: the watched script, a target / ``--inner`` / ``--variant`` / ``--args-from``
  module file, a linted file, a ``--config`` file, a result file being re-rendered;
- it is the same file as another output of the same run (``--json r --html r``);
- trying the write fails. The check *tries* it (a temporary file created and removed beside
  the target, and the target itself opened for appending, which changes nothing) rather than
  asking ``os.access``, which answers yes to everything when run as root, as in most containers
  and CI runners, so the error would otherwise only come after the measurement.

Messages read ``OPTION LABEL: cannot write PATH: reason`` and
``OPTION PATH: would overwrite WHAT INPUT; choose another path``.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence

from ..errors import UsageError

LINTED_SUFFIXES = (".py", ".pyi")


def guard_outputs(outputs: Iterable[tuple[str, str | None] | tuple[str, str | None, str]],
                  inputs: Iterable[tuple[str, str | None]] = (), trees: Sequence[str] = ()) -> None:
    """Refuse, in one ``jitscope:`` line, an output that would overwrite an input or another output,
    or that cannot be written.

    Args:
        outputs: ``(option, path)`` or ``(option, label, path)`` per file the run will write; a
            ``None`` path is skipped. ``label`` is shown after the option (``--plot PREFIX``).
        inputs: ``(what, path)`` per file the run reads, e.g. ``("the watched script", "prog.py")``.
        trees: directories whose ``*.py`` / ``*.pyi`` files are inputs (``jitscope lint DIR``).

    Raises:
        UsageError: the first offending output, naming its option and the input it would destroy.
    """
    known = [(what, path, _real(path)) for what, path in inputs if path]
    tree_reals = [_real(t) for t in trees if t and os.path.isdir(t)]
    seen: list[tuple[str, str, str]] = []
    for item in outputs:
        option, label, path = item if len(item) == 3 else (item[0], item[1], item[1])  # type: ignore[misc]
        if not path:
            continue
        real = _real(path)
        for what, in_path, in_real in known:
            if real == in_real:
                raise UsageError(f"{option} {label}: would overwrite {what} {in_path}; choose another path")
        if os.path.isfile(real) and real.endswith(LINTED_SUFFIXES):
            for tree in tree_reals:
                if real.startswith(tree.rstrip(os.sep) + os.sep):
                    raise UsageError(f"{option} {label}: would overwrite a linted file ({path}); "
                                     "choose another path")
        special = os.path.exists(real) and not os.path.isfile(real)  # /dev/null may take every output
        for other_option, other_label, other_real in seen:
            if real == other_real and not special:
                raise UsageError(f"{option} {label}: same file as {other_option} {other_label}; "
                                 "give each output its own path")
        try_write(path, option, label)
        seen.append((option, label, real))


def try_write(path: str, option: str = "--json", label: str | None = None) -> None:
    """Fail early (``UsageError``) when ``path`` cannot be written, by trying, without changing anything.

    The parent directory may not exist yet (outputs create their parents): the nearest existing
    ancestor must then be a directory where a file can be created.
    """
    head = f"{option} {label if label is not None else path}: cannot write {path}"
    if os.path.isdir(path):
        raise UsageError(f"{head}: is a directory")
    if os.path.exists(path) and not os.path.isfile(path):  # /dev/null, a FIFO: written in place
        if stat.S_ISCHR(os.stat(path).st_mode):
            try:
                with open(path, "ab"):
                    pass
            except OSError as e:
                raise UsageError(f"{head}: {e.strerror or e}") from None
        return  # a FIFO would block until read: the write itself will tell
    parent = os.path.dirname(os.path.abspath(path))
    ancestor = parent
    while not os.path.lexists(ancestor) and ancestor != os.path.dirname(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise UsageError(f"{head}: {_shown(ancestor, path)} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(prefix=".jitscope-probe-", dir=ancestor)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise UsageError(f"{head}: directory {_shown(ancestor, path)} is not writable") from None
        raise UsageError(f"{head}: {e.strerror or e}") from None
    if os.path.isfile(path):  # an existing regular file: can it be opened for writing? (append: no change)
        try:
            with open(path, "ab"):
                pass
        except OSError as e:
            reason = "permission denied" if e.errno in (errno.EACCES, errno.EPERM) else (e.strerror or str(e))
            raise UsageError(f"{head}: {reason}") from None


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _shown(ancestor: str, path: str) -> str:
    """``ancestor`` spelled as the user spelled ``path`` (relative stays relative)."""
    return ancestor if os.path.isabs(path) else os.path.relpath(ancestor)
