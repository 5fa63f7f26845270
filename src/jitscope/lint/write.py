"""Writing fixed source back to the user's file, safely on anyone's tree.

The file is rewritten in place (same inode), so its mode, owner, hard links and ACLs stay
as they were; a symlink is followed and its target fixed, the link kept. The bytes keep the
file's encoding, a UTF-8 BOM and its line endings (fixes never add newlines). A file the
user cannot write is refused, judged by the owner write bit as well as ``os.access``
(which says yes to everything as root, the usual case in containers and CI). Just before
writing, the file is read again and skipped if it changed since it was linted, so an edit
saved meanwhile is never lost. Every refusal is one line returned to the caller, never an
exception, so one file's failure never aborts the others.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tokenize
from collections.abc import Iterator

BOM = b"\xef\xbb\xbf"


def encode_like(original: bytes, text: str) -> bytes:
    """``text`` encoded as ``original`` was: its PEP 263 encoding, and its BOM if it had one."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(original).readline)
    if encoding == "utf-8-sig" or original.startswith(BOM):
        return BOM + text.encode("utf-8")
    return text.encode(encoding)


def unwritable(path: str) -> str | None:
    """Why ``path`` must not be rewritten (a one-line reason), or None when it may be."""
    try:
        st = os.stat(path)
    except OSError as e:
        return f"cannot stat: {e.strerror or e}"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if not st.st_mode & stat.S_IWUSR:
        return "file is read-only"
    if not os.access(path, os.W_OK):
        return "permission denied"
    return None


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block ends, so a file is never left half-written (main thread only)."""
    import signal  # here, not at the top: a lint that writes no file does not import them
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[object] = []
    previous = signal.signal(signal.SIGINT, lambda *a: caught.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)
        elif caught and previous == signal.default_int_handler:
            raise KeyboardInterrupt


def write_fixed(path: str, original: bytes, text: str) -> str | None:
    """Write fixed ``text`` over ``path`` if it still holds ``original``; None, or why it was not written."""
    real = os.path.realpath(path)  # a symlink: fix the target, keep the link
    why = unwritable(real)
    if why is not None:
        return why
    try:
        data = encode_like(original, text)
    except (UnicodeEncodeError, LookupError, SyntaxError) as e:
        return f"fixed text not encodable in the file's encoding: {str(e).splitlines()[0]}"
    try:
        with _sigint_deferred(), open(real, "r+b") as fh:
            if fh.read() != original:
                return "file changed since it was read; not fixed (run lint again)"
            fh.seek(0)
            try:
                fh.write(data)
                fh.truncate()
            except OSError:
                fh.seek(0)  # a short write (disk full): put the original bytes back
                fh.write(original)
                fh.truncate()
                raise
    except OSError as e:
        return f"cannot write: {e.strerror or e}"
    return None
