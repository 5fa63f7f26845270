"""Which test is running: the pytest node id each compile is recorded under (``CompileEvent.test``).

Under ``jitscope watch -m pytest`` one watch spans the whole session, and JAX's caches live across
tests. A duplicate compile or a "create the jitted function once" fix is advice only where one user
action can merge the compiles: within one test (a parametrization is its own test, with its own node
id). The pytest plugin sets the node id around each test's setup, call and teardown (through the
command layer, ``_watch.running_test``); the collector stamps it on each event.

A process-wide value, not a thread-local one: a test's worker threads compile for that test too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_current: list[str | None] = [None]


def current_test() -> str | None:
    """The node id of the test running now, or None outside a test."""
    return _current[0]


@contextmanager
def running_test(nodeid: str) -> Iterator[None]:
    """Stamp compiles made inside the block with ``nodeid`` (the previous value comes back after)."""
    previous, _current[0] = _current[0], nodeid
    try:
        yield
    finally:
        _current[0] = previous
