"""CPU time of `jitscope lint` on one small file, beyond the interpreter's own start (issue #25 item 5).

    python benchmarks/lint_small_file.py [--runs 40]

Runs, interleaved, ``python -c pass`` and ``python -m jitscope lint --no-config --exit-zero small.py`` (a
30-line file with one jitted function and one finding) as child processes and reads each child's CPU time
(user + system, ``os.wait4``); prints the medians and their difference: what linting one small file costs,
imports included (goal: under 50 ms; nothing heavy such as JAX is imported on the lint path).
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    src = str(Path(__file__).resolve().parent.parent / "src")
    # Bytecode caches are written (as an installed package has them): with PYTHONDONTWRITEBYTECODE set, every
    # run would compile jitscope's modules again and time the compiler.
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": src}
    with tempfile.TemporaryDirectory() as d:
        small = Path(d) / "small.py"
        small.write_text(SMALL)
        plain, lint = [], []
        cmd = [sys.executable, "-m", "jitscope", "lint", "--no-config", "--exit-zero", str(small)]
        _cpu(cmd, env)  # bytecode caches written once
        for _ in range(args.runs):
            plain.append(_cpu([sys.executable, "-c", "pass"], env))
            lint.append(_cpu(cmd, env))
    a, b = statistics.median(plain), statistics.median(lint)
    print(f"runs: {args.runs}  python {sys.version.split()[0]}")
    print("| command | median CPU ms |\n|---|---:|")
    print(f"| python -c pass | {a * 1e3:.1f} |\n| jitscope lint small.py | {b * 1e3:.1f} |")
    print(f"lint of one small file beyond interpreter start: {(b - a) * 1e3:.1f} ms CPU (goal: under 50 ms)")


if __name__ == "__main__":
    main()
