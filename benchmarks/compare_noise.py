"""How often `compare` calls two identical functions "within noise", idle and with every core busy.

    python benchmarks/compare_noise.py [--runs 10] [--sample-seconds 0.5]

For each machine state (idle; every core running a busy loop) and each pair of identical functions
(eager a/b; jax.jit a/b) and workload (per call; 1 call; 100 calls), runs `jitscope.compare` RUNS
times and prints how many verdicts were "within noise" (the goal: all of them), plus how often a
real ~100x difference (150 eager ops vs one jitted program) was still told apart. Issue #26 item 4.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))


def f_a(x):
    import jax.numpy as jnp

    return jnp.tanh(x) * 2.0 + jnp.sin(x)


def f_b(x):
    import jax.numpy as jnp

    return jnp.tanh(x) * 2.0 + jnp.sin(x)


def many_ops(x):
    import jax.numpy as jnp

    for _ in range(50):
        x = jnp.sin(x) * 0.5 + 0.1
    return x


@contextmanager
def load(busy: bool):
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)] \
        if busy else []
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--sample-seconds", dest="budget", type=float, default=0.5)
    args = ap.parse_args()
    import jax
    import jax.numpy as jnp

    import jitscope

    x = jnp.ones(1000)
    pairs = {"eager a/b": {"a": f_a, "b": f_b}, "jit a/b": {"a": jax.jit(f_a), "b": jax.jit(f_b)}}
    print(f"JAX {jax.__version__}, {os.cpu_count()} cores, {args.runs} runs each, budget {args.budget} s\n")
    print("| machine | pair | calls | within noise | told apart (wrongly) | seconds per compare |")
    print("|---|---|---|---:|---:|---:|")
    for busy in (False, True):
        state = "cores busy" if busy else "idle"
        with load(busy):
            for label, variants in pairs.items():
                for calls in (None, 1, 100):
                    noise, t0 = 0, time.perf_counter()
                    for _ in range(args.runs):
                        r = jitscope.compare(variants, (x,), calls=calls, sample_seconds=args.budget, phases=False)
                        noise += r.recommendation.within_noise
                    dt = (time.perf_counter() - t0) / args.runs
                    print(f"| {state} | {label} | {calls or 'per call'} | {noise}/{args.runs} | "
                          f"{args.runs - noise} | {dt:.1f} |", flush=True)
            told = 0
            for _ in range(args.runs):
                r = jitscope.compare({"eager": many_ops, "jit": jax.jit(many_ops)}, (jnp.ones(64),),
                                     sample_seconds=args.budget, phases=False)
                told += (not r.recommendation.within_noise) and r.recommendation.best == "jit"
            print(f"| {state} | eager vs jit, 150 ops (~100x) | per call | told apart {told}/{args.runs} | | |",
                  flush=True)


if __name__ == "__main__":
    main()
