"""What reading the persistent-cache key's components costs a compile (issue 15 item 1).

With a cache directory set, watch turns JAX's cache-key logger to DEBUG, and JAX then hashes every key
component twice (once for the key, once for the log line), serialising the program twice. This
measures a compile that uses the cache (a miss, not written: the threshold is set out of reach, so
every repeat recompiles) three ways, interleaved: bare JAX, watch with the key lines off, watch with
them on (the default). Medians of per-compile wall seconds; the ratio is on/off.

    .venv/bin/python benchmarks/persistent_cache_overhead.py [--ops 400] [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=400, help="elementwise ops in the compiled program")
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()

    import jax
    import jax.numpy as jnp

    import jitscope
    from jitscope.collect import persistent_cache

    jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="jitscope-bench-cache-"))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)  # never written: always a miss

    def program(x):
        for i in range(args.ops):
            x = jnp.sin(x) * (1.0 + i * 1e-3) if i % 2 else x + jnp.cos(x)
        return x

    x = jnp.ones(64)

    def compile_once() -> float:
        jax.clear_caches()
        t = time.perf_counter()
        jax.jit(program)(x).block_until_ready()
        return time.perf_counter() - t

    real_key_lines = persistent_cache._key_lines
    times: dict[str, list[float]] = {"bare": [], "watch, key lines off": [], "watch, key lines on": []}
    compile_once()  # warm-up: imports, backend
    for _ in range(args.repeats):
        times["bare"].append(compile_once())
        persistent_cache._key_lines = lambda on: real_key_lines(False)
        with jitscope.watch(findings=False):
            times["watch, key lines off"].append(compile_once())
        persistent_cache._key_lines = real_key_lines
        with jitscope.watch(findings=False) as w:
            times["watch, key lines on"].append(compile_once())
        assert w.events[-1].persistent_cache is not None and w.events[-1].persistent_cache.components
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"persistent-cache key capture, {args.ops}-op program, {args.repeats} repeats, jax {jax.__version__}")
    for k, v in med.items():
        print(f"  {k:24s} median compile {v * 1e3:8.1f} ms")
    on, off = med["watch, key lines on"], med["watch, key lines off"]
    print(f"  key lines on / off: {on / off:.3f}x ({(on - off) * 1e3:+.1f} ms per compile)")


if __name__ == "__main__":
    main()
