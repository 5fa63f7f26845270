"""Reading input files and opening output files safely: the ground floor every command shares.

* ``read_text``: a file a command reads (a saved run or result) is a regular file or a pipe, read to at
  most ``MAX_INPUT_BYTES``: ``/dev/zero`` or a directory is one line, never a read until memory runs out.
* ``open_exclusive``: a per-process output in a shared directory (``JITSCOPE=watch``'s files, a forked
  child's) is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``: never through a planted link, never over an
  existing file (issue #23 item 3).
* ``process_token``: a name part that cannot collide across hosts, containers (all pid 1) or pid reuse.
* ``SoftFile``: an output written while the user's program runs (``--events``, ``JITSCOPE=watch``); a
  write that fails (a full disk, EIO, a removed directory, a closed pipe) is said once, in one line, and
  never raised into the program (issue #23 item 4).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import threading
from typing import IO

from .errors import UsageError

MAX_INPUT_BYTES = 1 << 30  # a saved run or result larger than this is refused, not read


def read_text(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of ``path``: a regular file or a pipe, at most ``limit`` bytes.

    Raises:
        UsageError: no such file, a directory or a device (``/dev/zero``, ``/dev/null``), a file over
            ``limit``, unreadable or not UTF-8 (one line: ``PATH: why``).
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror or e})") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"{path}: is a directory, not a file")
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise UsageError(f"{path}: is a device or special file, not a saved file")
    if stat.S_ISREG(mode) and os.stat(path).st_size > limit:
        raise UsageError(f"{path}: larger than {limit >> 20} MiB; not a saved jitscope file")
    chunks: list[bytes] = []
    size = 0
    try:
        with open(path, "rb") as f:
            while True:
                chunk = f.read(min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    raise UsageError(f"{path}: larger than {limit >> 20} MiB; not a saved jitscope file")
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8 text (byte {e.start})") from None


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is (through links) a regular file: what may be read twice and by a guess."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


_TOKEN: tuple[int, str] | None = None


def process_token() -> str:
    """``<pid>-<host>-<random>``: unique per process across hosts, containers sharing a directory (all pid
    1) and pid reuse; the same all through one process (a forked child gets its own). The host part is the
    host name's first label, ASCII letters, digits and ``-`` only."""
    global _TOKEN
    pid = os.getpid()
    if _TOKEN is None or _TOKEN[0] != pid:
        import socket  # here: most commands never write a file exclusively

        try:
            name = socket.gethostname()
        except OSError:
            name = ""
        host = "".join(c for c in name.split(".")[0] if c.isascii() and (c.isalnum() or c == "-"))[:24]
        _TOKEN = (pid, f"{pid}-{host or 'host'}-{os.urandom(4).hex()}")
    return _TOKEN[1]


def open_exclusive(path: str | os.PathLike[str], mode: int = 0o644) -> IO[str]:
    """A new file at ``path`` for writing text: created with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so a
    link planted there (even a dangling one) or an existing file makes it fail (``FileExistsError`` or
    ``OSError(ELOOP)``) instead of writing through it or over it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, mode)
    try:
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_exclusive(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to a new file at ``path`` (``open_exclusive``); the file is removed if the write fails."""
    f = open_exclusive(path)
    try:
        with f:
            f.write(text)
    except BaseException:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise


class SoftFile:
    """An output written while the user's program runs: a failing write never reaches the program.

    The first ``OSError`` (ENOSPC, EIO, EPIPE, a removed directory: anything the file system says)
    closes the file, is said once on stderr (``jitscope: cannot write PATH: why; ...``) and is kept in
    ``error``; later writes are dropped. What the caller keeps in memory is its own to write at the end.
    """

    def __init__(self, f: IO[str] | None, path: str, say: bool = True) -> None:
        self.file = f
        self.path = path
        self.error: str | None = None
        self._say = say
        self._lock = threading.Lock()

    def write(self, text: str) -> bool:
        """Write and flush ``text``; False (and nothing raised) once the file has failed."""
        with self._lock:
            if self.file is None:
                return False
            try:
                self.file.write(text)
                self.file.flush()
                return True
            except (OSError, ValueError) as e:  # ValueError: the file was closed under us
                self.fail(e)
                return False

    def fail(self, e: BaseException) -> None:
        """Close the file, keep ``error``, say it once (``write`` and ``close`` call it on an error)."""
        f, self.file = self.file, None
        why = getattr(e, "strerror", None) or (errno.errorcode.get(getattr(e, "errno", 0) or 0) or str(e))
        self.error = why
        try:
            if f is not None:
                f.close()
        except (OSError, ValueError):
            pass
        if self._say:
            say_once(f"jitscope: cannot write {self.path}: {why}; the program goes on, and what was recorded "
                     "is kept for the end-of-run outputs")

    @property
    def closed(self) -> bool:
        return self.file is None

    def close(self) -> None:
        with self._lock:
            f, self.file = self.file, None
            if f is None:
                return
            try:
                f.close()
            except (OSError, ValueError) as e:
                self.file = f
                self.fail(e)


_SAID: set[str] = set()


def say_once(line: str) -> None:
    """Print ``line`` on stderr once per process; never raises (stderr may be closed or a dead pipe)."""
    if line in _SAID:
        return
    _SAID.add(line)
    try:
        stream = sys.__stderr__ or sys.stderr
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass
