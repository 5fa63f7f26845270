"""Does watch count exactly the compiles JAX reports? Per test, over a real library's test suite.

Run it with a Python that has JAX, pytest and the library (a bench venv; jitscope only needs to be
importable, e.g. through PYTHONPATH=src):

    PYTHONPATH=src JAX_PLATFORMS=cpu /work/bench/venv/bin/python benchmarks/watch_truth.py \\
        /work/bench/venv/lib/python3.11/site-packages/optax/_src/alias_test.py [more test paths] \\
        [--json rows.json] [-- extra pytest args]

Each test's call phase runs under a ``jitscope.watch`` session while a ``jax.monitoring`` listener
counts backend compiles (``/jax/core/compile/backend_compile_duration``) by program name, the
independent truth. Per function name that watch attributed to the user:

* phantom = watch's compiles beyond JAX's backend compiles of that name (counted, never compiled);
* missed  = JAX's backend compiles of that name beyond watch's (compiled, not counted; e.g. the
  backward program of ``grad(jit(f))``).

Backend compiles whose name watch never attributed to a user function are reported as
``other`` (JAX's eager-op programs, and user forms watch does not see at all, such as ``pmap``);
this script cannot tell those two apart, so it reports them and does not call them missed.
Also reported: each test's outcome, which must be the same with and without the session
(compare with a plain ``pytest`` run of the same paths).
"""

from __future__ import annotations

import collections
import json
import sys
from typing import Any

import pytest

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
ROWS: list[dict[str, Any]] = []


class TruthPlugin:
    """Per test: watch's compiles by function vs JAX's backend compiles by program name."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        from jax import monitoring

        import jitscope

        truth: collections.Counter[str] = collections.Counter()

        def span(event: str, start: float, end: float, **kw: Any) -> None:
            if event == BACKEND_COMPILE:
                truth[str(kw.get("fun_name"))] += 1

        monitoring.register_event_time_span_listener(span)
        w = jitscope.watch(explain=False)
        w.__enter__()
        try:
            return (yield)
        finally:
            w.__exit__(None, None, None)
            monitoring.unregister_event_time_span_listener(span)
            counted = collections.Counter(f"jit({e.function.rsplit('.', 1)[-1]})" for e in w.events)
            phantom = sum(max(0, n - truth.get(k, 0)) for k, n in counted.items())
            missed = sum(max(0, truth.get(k, 0) - n) for k, n in counted.items())
            other = sum(n for k, n in truth.items() if k not in counted)
            ROWS.append({"test": item.nodeid, "watch": sum(counted.values()), "phantom": phantom,
                         "missed": missed, "other_backend": other,
                         "uncompiled": len(getattr(w, "uncompiled", ()))})  # absent before the fix

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            for row in reversed(ROWS):
                if row["test"] == report.nodeid:
                    row["outcome"] = report.outcome
                    break


def main(argv: list[str]) -> int:
    out = None
    if "--json" in argv:
        i = argv.index("--json")
        out = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if not argv:
        print("usage: watch_truth.py TEST_PATH... [--json OUT] [-- pytest args]", file=sys.stderr)
        return 2
    code = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", *extra, *argv],
                       plugins=[TruthPlugin()])
    tot = {k: sum(r[k] for r in ROWS) for k in ("watch", "phantom", "missed", "other_backend", "uncompiled")}
    outcomes = collections.Counter(r.get("outcome", "?") for r in ROWS)
    print(f"watch_truth: {len(ROWS)} tests ({dict(outcomes)}); watch counted {tot['watch']} compiles; "
          f"phantom {tot['phantom']}, missed {tot['missed']}; backend compiles of other names "
          f"{tot['other_backend']}; traces/lowerings not counted {tot['uncompiled']}")
    for r in ROWS:
        if r["phantom"] or r["missed"]:
            print(f"  {r['test']}: watch {r['watch']}, phantom {r['phantom']}, missed {r['missed']}")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(ROWS, f, indent=1)
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
