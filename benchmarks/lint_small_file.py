"""CPU time of `jitscope lint` on one small file, beyond the interpreter's own start (issue #25 item 5).

    python benchmarks/lint_small_file.py [--runs 40] [--src DIR ...]

Runs, interleaved, ``python -c pass`` and ``python -m jitscope lint --no-config --exit-zero small.py`` (a
16-line file with one jitted function and one finding) as child processes and reads each child's CPU time
(user + system, ``os.wait4``, which includes what the child's own children used); prints the medians and their
difference: what linting one small file costs, imports included (goal: under 50 ms; nothing heavy such as
JAX is imported on the lint path). Also, in a child that has imported ``jitscope.cli`` only: the CPU time of
the first ``main(["lint", ...])`` call (the lint engine's imports included) and of a second one (nothing left
to import: the lint itself).

``--src`` times another checkout's ``src`` directory beside this one's (before/after in the same window).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SMALL = '''import jax
import jax.numpy as jnp


@jax.jit
def step(params, x, lr):
    grads = jax.grad(lambda p: jnp.sum((p * x) ** 2))(params)
    if lr > 0.1:            # a Python branch on a traced value: one finding
        lr = lr / 2
    return params - lr * grads


def train(params, xs):
    for x in xs:
        params = step(params, x, 0.05)
    return params
'''


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime


IN_PROCESS = """
import contextlib, io, sys, time
from jitscope.cli import main
argv = ["lint", "--no-config", "--exit-zero", sys.argv[1]]
times = []
for _ in range(2):
    t = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
    times.append(time.process_time() - t)
print(times[0], times[1])
"""


def _in_process(small: Path, env: dict[str, str]) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", IN_PROCESS, str(small)], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--src", action="append", default=[], help="another checkout's src directory to time beside")
    args = ap.parse_args()
    srcs = [str(Path(__file__).resolve().parent.parent / "src"), *args.src]
    # Bytecode caches are written (as an installed package has them): with PYTHONDONTWRITEBYTECODE set, every
    # run would compile jitscope's modules again and time the compiler.
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    envs = {src: {**base_env, "PYTHONPATH": src} for src in srcs}
    plain: list[float] = []
    lint: dict[str, list[float]] = {src: [] for src in srcs}
    first: dict[str, list[float]] = {src: [] for src in srcs}
    again: dict[str, list[float]] = {src: [] for src in srcs}
    with tempfile.TemporaryDirectory() as d:
        small = Path(d) / "small.py"
        small.write_text(SMALL)
        cmd = [sys.executable, "-m", "jitscope", "lint", "--no-config", "--exit-zero", str(small)]
        for src in srcs:
            _cpu(cmd, envs[src])  # bytecode caches written once
        for _ in range(args.runs):
            plain.append(_cpu([sys.executable, "-c", "pass"], base_env))
            for src in srcs:
                lint[src].append(_cpu(cmd, envs[src]))
                one, two = _in_process(small, envs[src])
                first[src].append(one)
                again[src].append(two)
    a = statistics.median(plain)
    print(f"runs: {args.runs}  python {sys.version.split()[0]}  load average {os.getloadavg()[0]:.1f} (at the end)")
    print("\n| src | python -c pass | whole process | beyond python -c pass | in process, first call "
          "(engine imports included) | in process, second call |\n|---|---:|---:|---:|---:|---:|")
    for src in srcs:
        b = statistics.median(lint[src])
        print(f"| {src} | {a * 1e3:.1f} | {b * 1e3:.1f} | {(b - a) * 1e3:.1f} | "
              f"{statistics.median(first[src]) * 1e3:.1f} | {statistics.median(again[src]) * 1e3:.1f} |")
    print("\nmedian CPU ms (user + system); goal: one small file under 50 ms")


if __name__ == "__main__":
    main()
