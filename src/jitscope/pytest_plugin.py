"""pytest plugin: compile budgets per test, and a compile summary per test.

Registered through the ``pytest11`` entry point, so it is active wherever jitscope is
installed; it imports nothing heavy (no JAX) until a test asks for it.

* ``pytest --jitscope``: watch every test and print, at the end of the session, each
  test's compiles, compile seconds, recompiles with their reasons, and runtime findings (JWxxx).
* ``@pytest.mark.jitscope(max_compiles=N, fail_on_recompile=False)``: watch this test and
  fail it if its body compiles the user's jitted functions more than N times (or recompiles
  any of them). The failure message lists every compile with its reason and call site.

Only the test function's call phase is watched (compiles in fixtures, e.g. a warm-up
fixture, are not counted). JAX's own eager-op compiles never count. Works under
pytest-xdist: per-test data travels in ``report.user_properties``.

A marked test's result does not depend on test order or on how ``-n`` distributes tests:
JAX's in-memory caches are process-wide, so before a marked test's setup the plugin clears
them (``jax.clear_caches()``). Its counts are those of the test alone: what earlier tests
compiled is compiled again if the test needs it, and a function-scoped warm-up fixture still
warms the body. (A module- or session-scoped fixture ran before the clear; its compiles are
not warm for the marked test.)
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest

_KEY = "jitscope"
_ROWS: list[tuple[str, dict[str, Any]]] = []  # (nodeid, row) collected on the controller
# Is this pytest session itself the watched program (``jitscope watch -m pytest``: a watch was already running
# when the session started), so that each compile belongs to the test that ran it? A ``jitscope.watch()`` block
# that a test opens is that test's own program: its compiles are not stamped, and its findings are the block's.
_SUITE_WATCHED = [False]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jitscope", "jitscope: jit compile budgets")
    group.addoption("--jitscope", action="store_true", default=False,
                    help="watch every test's jit compiles and print a per-test compile summary")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "jitscope(max_compiles=None, fail_on_recompile=False): fail the test if its body compiles "
        "jitted functions more than max_compiles times (or recompiles any, with fail_on_recompile)")
    _ROWS.clear()
    _SUITE_WATCHED[0] = bool(config.getoption("jitscope", default=False)) or _watch_running() or _autowatched()


def _autowatched() -> bool:
    """``JITSCOPE=watch pytest`` (xdist workers included): the startup hook watches this whole process from JAX's
    import on, which is usually after this point (the test modules import JAX when collected)."""
    return "jitscope_autowatch_hook" in sys.modules and os.environ.get("JITSCOPE", "").strip().lower() == "watch"


def _watch_running() -> bool:
    """A watch is receiving compiles in this process (only possible once jitscope's watch is imported)."""
    if "jitscope._watch" not in sys.modules:
        return False
    from ._watch import watch_running

    return watch_running()


def _budget(marker: Any) -> tuple[int | None, bool]:
    if marker is None:
        return None, False
    if marker.args:
        raise pytest.UsageError("@pytest.mark.jitscope takes keyword arguments: max_compiles=, fail_on_recompile=")
    unknown = set(marker.kwargs) - {"max_compiles", "fail_on_recompile"}
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.jitscope: unknown argument(s) {', '.join(sorted(unknown))}")
    return marker.kwargs.get("max_compiles"), bool(marker.kwargs.get("fail_on_recompile", False))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The test modules are the program being run: where a suite lives inside site-packages
    (``pytest --pyargs pkg``), its package's frames are call sites, not library frames."""
    from ._jaxcompat.source import add_program_path

    for path in {str(getattr(item, "path", "") or "") for item in items}:
        if path:
            add_program_path(path)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("jitscope") is not None:
        import jax

        jax.clear_caches()  # the test's counts are its own, whatever ran before in this process


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Stamp each compile of the test's setup, call and teardown with its node id (``CompileEvent.test``):
    under ``jitscope watch -m pytest`` duplicates and fixes are paired within one test only."""
    if not _SUITE_WATCHED[0] and item.get_closest_marker("jitscope") is None:
        return (yield)  # the suite is not the watched program: nothing to stamp, nothing imported
    from ._watch import running_test

    with running_test(item.nodeid):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    marker = item.get_closest_marker("jitscope")
    if marker is None and not item.config.getoption("jitscope"):
        return (yield)
    max_compiles, fail_on_recompile = _budget(marker)
    from ._watch import WatchSession, describe, finding_line

    session = WatchSession(max_compiles=max_compiles, fail_on_recompile=fail_on_recompile,
                           program=item.nodeid).start()
    try:
        result = yield
    finally:
        session.stop()
        watched = session.result(capture_env=False)  # per test: just the totals
        item.user_properties.append((_KEY, json.dumps({
            "compiles": len(watched.events),
            "seconds": watched.compile_seconds,
            "recompiles": [describe(e) for e in watched.recompiles],
            "findings": [finding_line(f) for f in watched.findings],
        })))
    if watched.violations:
        lines = [f"jitscope: compile budget exceeded: {'; '.join(watched.violations[:1])}"]
        lines += [f"  #{e.index} {describe(e)}" for e in watched.events]
        pytest.fail("\n".join(lines), pytrace=False)
    return result


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name == _KEY:
            _ROWS.append((report.nodeid, json.loads(value)))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not config.getoption("jitscope") or not _ROWS:
        return
    tr = terminalreporter
    tr.section("jitscope: compiles per test")
    for nodeid, row in sorted(_ROWS, key=lambda r: (-r[1]["compiles"], -r[1]["seconds"])):
        tr.write_line(f"{row['compiles']:4d} compiles {row['seconds'] * 1e3:9.1f} ms  {nodeid}")
        for line in row["recompiles"][:10]:
            tr.write_line(f"       recompile: {line}")
        for line in row.get("findings", [])[:10]:  # the test's runtime findings (JWxxx), paired within the test
            tr.write_line(f"       {line}")
    _ROWS.clear()
