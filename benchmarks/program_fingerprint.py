"""What does fingerprinting a compile's program cost (watch: duplicate compiles, ``collect/program_text.py``)?

For unrolled programs of growing size: the median backend compile (``Lowered.compile()``) against the
median time watch adds on the compile path for the same module: printing it without debug info and
normalising it (``capture``), then the table entry (``program_text``: short constants, zlib level 1).
Medians over repeats, interleaved; the ratio is the share of the compile.

    python benchmarks/program_fingerprint.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from jitscope.collect.program_text import MAX_CHARS, capture, program_text  # noqa: E402


def make(n: int):  # noqa: ANN201
    def f(x):
        for i in range(n):
            x = jnp.sin(x) * 1.01 + i
        return x
    return f


def measure(n: int, repeats: int) -> tuple[int, float, float, float]:
    lowered = jax.jit(make(n)).lower(jnp.ones(8))
    module = lowered.compiler_ir()
    chars = len(module.operation.get_asm(enable_debug_info=False))
    comp, cap, table = [], [], []
    for _ in range(repeats):
        lowered = jax.jit(make(n)).lower(jnp.ones(8))  # a new function: no in-memory cache hit
        t0 = time.perf_counter()
        lowered.compile()
        comp.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        p = capture(lowered.compiler_ir())
        cap.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        if p is not None:
            program_text(p)
        table.append(time.perf_counter() - t0)
    return chars, statistics.median(comp), statistics.median(cap), statistics.median(table)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes and repeats (noisy)")
    a = ap.parse_args(argv)
    sizes, repeats = ((10, 100), 3) if a.quick else ((10, 100, 1000, 3000), 7)
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, python {sys.version.split()[0]}, "
          f"{repeats} repeats, texts over {MAX_CHARS:,} characters are not fingerprinted")
    print("| unrolled steps | StableHLO chars | compile median (ms) | print + normalise (ms) | table entry (ms) "
          "| share of compile |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        chars, comp, cap, table = measure(n, repeats)
        print(f"| {n} | {chars:,} | {comp * 1e3:.1f} | {cap * 1e3:.2f} | {table * 1e3:.2f} | "
              f"{100 * (cap + table) / comp:.1f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
