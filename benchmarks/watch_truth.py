"""Does watch count exactly the compiles JAX reports? Per test, over a real library's test suite.

Run it with a Python that has JAX, pytest and the library (a bench venv; jitscope only needs to be
importable, e.g. through PYTHONPATH=src):

    PYTHONPATH=src JAX_PLATFORMS=cpu /work/bench/venv/bin/python benchmarks/watch_truth.py \\
        /work/bench/venv/lib/python3.11/site-packages/optax/_src/alias_test.py [more test paths] \\
        [--json rows.json] [-- extra pytest args]

Each test's call phase runs under a ``jitscope.watch`` session while this script, on its own,
records every backend compile (``jax.monitoring``'s ``/jax/core/compile/backend_compile_duration``)
and classifies it as the user's or JAX's, independently of watch's attribution:

* how: JAX logs ``Compiling <module> with global shapes and types ...`` (logger
  ``jax._src.interpreters.pxla``, the ``jax_log_compiles`` line, here at DEBUG) from
  ``_cached_lowering_to_hlo`` just before it lowers a program; a handler reads that frame's
  ``closed_jaxpr``. The next backend compile of that module name on the thread is that program's.
* the rule: a program is the user's when the function it was traced from
  (``debug_info.func_src_info``), or any function whose jaxpr is inside it (cond branches, loop
  bodies, at any depth), is defined outside the ``jax``/``jaxlib`` packages, or when it is
  ``jax.pmap``'s wrapper (``jax/_src/pmap.py``). Everything else (eager ops, ``jnp`` routines) is
  internal. A program traced from one of JAX's own transformation wrappers
  (``jit(jacfwd(partial(f)))``: its source is ``<unknown>`` or ``jax/_src/api.py``) is the user's
  when an equation's traceback (which stops at the trace's entry) has a frame outside JAX: user code
  ran inside the trace. This is broader than watch's rule (watch looks inside JAX's one-primitive
  eager wrappers only), so a user program watch misses shows up as missed.
* a backend compile with no such log line before it (a lowering JAX had cached) is
  ``unclassified``; it is reported, never guessed.

Per test: phantom = watch's compiles beyond the user compiles found here, missed = user compiles
beyond watch's; internal = JAX's own. Also reported: each test's outcome, which must be the same
with and without the session (compare with a plain ``pytest`` run of the same paths).
"""

from __future__ import annotations

import collections
import json
import logging
import os
import sys
import threading
from typing import Any

import pytest

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
LOGGER = "jax._src.interpreters.pxla"
ROWS: list[dict[str, Any]] = []


def _jax_dirs() -> tuple[str, ...]:
    import jax
    import jaxlib

    import jitscope

    # jitscope's own frames (the watch session's hook) are not the user's code either
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (jax, jaxlib, jitscope))


def _sources(jaxpr: Any, depth: int = 0) -> list[str]:
    """``func_src_info`` of a jaxpr and of every jaxpr in its equations' params, any depth."""
    inner = getattr(jaxpr, "jaxpr", jaxpr)
    info = getattr(getattr(inner, "debug_info", None), "func_src_info", None)
    out = [info] if isinstance(info, str) else []
    if depth > 20:
        return out
    for eqn in getattr(inner, "eqns", ()):
        for value in eqn.params.values():
            for v in value if isinstance(value, (tuple, list)) else (value,):
                if hasattr(v, "eqns") or hasattr(getattr(v, "jaxpr", None), "eqns"):
                    out += _sources(v, depth + 1)
    return out


def _outside(file: str, jax_dirs: tuple[str, ...]) -> bool:
    return bool(file) and not file.startswith("<") and not os.path.abspath(file).startswith(jax_dirs)


def is_user_program(closed_jaxpr: Any, jax_dirs: tuple[str, ...]) -> bool:
    pmap_file = os.path.join("jax", "_src", "pmap.py")
    sources = _sources(closed_jaxpr)
    files = [src.rpartition(" at ")[2].rpartition(":")[0] for src in sources]
    if any(f.endswith(pmap_file) or _outside(f, jax_dirs) for f in files):
        return True
    # jit of JAX's own transformation wrapper (``jit(jacfwd(partial(f)))``: source "<unknown>" or
    # jax/_src/api.py): the user's if code outside JAX ran inside the trace. Equation tracebacks
    # stop at the trace's entry, so a frame outside JAX there is the user's code being traced.
    if files and files[0] and not files[0].endswith(os.path.join("jax", "_src", "api.py")):
        return False
    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    for eqn in getattr(jaxpr, "eqns", ()):
        try:
            codes, _ = eqn.source_info.traceback.raw_frames()
        except Exception:  # noqa: BLE001 - no traceback recorded: this equation says nothing
            continue
        if any(_outside(c.co_filename, jax_dirs) for c in codes):
            return True
    return False


class _LoweringLog(logging.Handler):
    """Classifies each program JAX is about to lower, from the frame that logs ``Compiling ...``."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.jax_dirs = _jax_dirs()
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith("Compiling "):
            return
        f = sys._getframe()
        while f is not None and "closed_jaxpr" not in f.f_locals:
            f = f.f_back
        if f is None or not record.args:
            return
        pending = self.local.__dict__.setdefault("pending", {})
        pending[str(record.args[0])] = is_user_program(f.f_locals["closed_jaxpr"], self.jax_dirs)

    def take(self, name: str) -> bool | None:
        return self.local.__dict__.setdefault("pending", {}).pop(name, None)


class TruthPlugin:
    """Per test: watch's compiles vs the backend compiles this script classifies as the user's."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        from jax import monitoring

        import jitscope

        counts: collections.Counter[str] = collections.Counter()
        names: collections.Counter[str] = collections.Counter()
        log = _LoweringLog()
        logger = logging.getLogger(LOGGER)
        saved = (logger.level, logger.propagate)

        def span(event: str, start: float, end: float, **kw: Any) -> None:
            if event == BACKEND_COMPILE:
                user = log.take(str(kw.get("fun_name")))
                kind = "unclassified" if user is None else ("user" if user else "internal")
                counts[kind] += 1
                if user:
                    names[str(kw.get("fun_name"))] += 1

        logger.addHandler(log)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False  # the DEBUG lines go to this handler only, not to pytest's log capture
        monitoring.register_event_time_span_listener(span)
        w = jitscope.watch(explain=False)
        w.__enter__()
        try:
            return (yield)
        finally:
            w.__exit__(None, None, None)
            monitoring.unregister_event_time_span_listener(span)
            logger.removeHandler(log)
            logger.setLevel(saved[0])
            logger.propagate = saved[1]
            watched = len(w.events)
            ROWS.append({"test": item.nodeid, "watch": watched, "user": counts["user"],
                         "phantom": max(0, watched - counts["user"]), "missed": max(0, counts["user"] - watched),
                         "internal": counts["internal"], "unclassified": counts["unclassified"],
                         "watch_internal": w.result().internal_compiles, "user_programs": dict(names),
                         "uncompiled": len(w.uncompiled)})

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
    keys = ("watch", "user", "phantom", "missed", "internal", "unclassified", "watch_internal", "uncompiled")
    tot = {k: sum(r[k] for r in ROWS) for k in keys}
    outcomes = collections.Counter(r.get("outcome", "?") for r in ROWS)
    print(f"watch_truth: {len(ROWS)} tests ({dict(outcomes)}); backend compiles: user {tot['user']}, internal "
          f"{tot['internal']}, unclassified {tot['unclassified']}; watch counted {tot['watch']} (internal "
          f"{tot['watch_internal']}); phantom {tot['phantom']}, missed user compiles {tot['missed']}; "
          f"traces/lowerings not counted {tot['uncompiled']}")
    for r in ROWS:
        if r["phantom"] or r["missed"] or r["unclassified"]:
            print(f"  {r['test']}: watch {r['watch']}, user {r['user']} {r['user_programs']}, phantom "
                  f"{r['phantom']}, missed {r['missed']}, unclassified {r['unclassified']}")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(ROWS, f, indent=1)
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
