"""What does ``JITSCOPE=watch`` cost a Python process that never imports JAX? (issue #23 item 5)

``python -c pass`` with and without ``JITSCOPE=watch`` in its environment (the startup hook
``jitscope-autowatch.pth`` installed), interleaved run by run so drift on a shared machine hits both
alike; the child's CPU time (user + system, from ``os.wait4``), medians. Goal: at most 1.05x.

Python's default bytecode cache is on (``PYTHONDONTWRITEBYTECODE`` removed from the children's
environment, as in a user's shell): the hook file is then loaded from its ``.pyc``. ``--no-pyc`` measures
with the cache off (every start compiles the hook from source), which costs more.

    python benchmarks/autowatch_startup.py [--runs 300] [--no-pyc]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys


def child_cpu(env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one ``python -c pass`` run with ``env``."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"python -c pass exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--no-pyc", action="store_true", help="keep PYTHONDONTWRITEBYTECODE=1 in the children")
    opts = ap.parse_args()
    base = {k: v for k, v in os.environ.items() if not k.startswith("JITSCOPE") and k != "PYTHONDONTWRITEBYTECODE"}
    if opts.no_pyc:
        base["PYTHONDONTWRITEBYTECODE"] = "1"
    watched = {**base, "JITSCOPE": "watch"}
    child_cpu(watched)  # the hook's .pyc written once, as a user's first run does
    plain, hooked = [], []
    for i in range(opts.runs):
        for env, into in ((base, plain), (watched, hooked)) if i % 2 == 0 else ((watched, hooked), (base, plain)):
            into.append(child_cpu(env))
    a, b = statistics.median(plain), statistics.median(hooked)
    print(f"python -c pass, {opts.runs} interleaved runs each, child CPU time (user+sys), medians"
          f"{' (bytecode cache off)' if opts.no_pyc else ''}:")
    print(f"  plain                 {a * 1e3:7.2f} ms")
    print(f"  JITSCOPE=watch        {b * 1e3:7.2f} ms")
    print(f"  ratio                 {b / a:7.3f}x   (goal <= 1.05x)")


if __name__ == "__main__":
    main()
