"""Progress announcements: what a long-running command is doing now, for whoever listens.

Collectors and commands call ``stage("compiling")`` as they move from one step to the next; by
default nobody listens and a call costs one attribute lookup. The CLI listens while a command runs
(``listening(callback)``) and shows the stage on a terminal (``cli/_common.progress``): a spinner on
stderr when it is a TTY, nothing when it is piped, so logs and JSON on stdout stay clean. This is the
one side channel from the lower layers up, kept here in the ground floor (standard library only) so
that ``collect/`` and the commands can announce without importing a renderer, as ``logging`` does.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

Listener = Callable[[str], None]

_local = threading.local()


def stage(description: str) -> None:
    """Announce the step the current thread starts now (``"tracing"``, ``"variant jit(g): first call"``)."""
    listener = getattr(_local, "listener", None)
    if listener is not None:
        try:
            listener(description)
        except Exception:  # noqa: BLE001 - a display problem must never stop a measurement
            pass


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send this thread's ``stage`` announcements to ``listener`` inside the block."""
    previous = getattr(_local, "listener", None)
    _local.listener = listener
    try:
        yield
    finally:
        _local.listener = previous
