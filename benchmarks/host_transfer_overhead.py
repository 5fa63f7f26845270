"""What JW508's conversion hook costs per call (collect/host_transfers.py): ``jnp.asarray`` of a jax.Array (the
hook's fast exit: not host data), of a 256 KiB NumPy array (timed; its line's first 12 calls, digested, fall
in the first round), and ``jnp.asarray`` of a tracer inside a trace (fast exit), each with the hook off and on,
interleaved round by round, medians of per-call times.

    python benchmarks/host_transfer_overhead.py [--rounds N] [--calls N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from jitscope.collect.host_transfers import HostTransferProbe, digest  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    dev = jnp.ones((64, 64))
    host = np.ones((256, 256), np.float32)
    def body(x):  # noqa: ANN001, ANN202
        return sum(jnp.asarray(x) for _ in range(50))

    def eager_device() -> None:
        for _ in range(a.calls):
            jnp.asarray(dev)

    def eager_host() -> None:
        for _ in range(a.calls // 10):
            jnp.asarray(host)

    def trace() -> None:
        for _ in range(5):
            jax.make_jaxpr(body)(dev)

    cases = [("jnp.asarray(jax.Array)", eager_device, a.calls), ("jnp.asarray(NumPy 256 KiB)", eager_host, a.calls // 10),
             ("trace: 50 jnp.asarray(tracer)", trace, 5)]
    times: dict[tuple[str, bool], list[float]] = {}
    for fn in (eager_device, eager_host, trace):
        fn()  # warm
    probe_kept = HostTransferProbe()  # one probe for every round: its lines' first 12 calls (digested) come once
    for _ in range(a.rounds):
        for on in (False, True):
            probe = probe_kept.install() if on else None
            try:
                for name, fn, n in cases:
                    t0 = time.perf_counter()
                    fn()
                    times.setdefault((name, on), []).append((time.perf_counter() - t0) / n)
            finally:
                if probe is not None:
                    probe.uninstall()
    print(f"jax {jax.__version__}, {a.rounds} rounds, load average {os.getloadavg()[0]:.1f}")
    print("| call | hook off (us) | hook on (us) | difference |")
    print("|---|---:|---:|---:|")
    for name, _, _ in cases:
        off, on = statistics.median(times[(name, False)]), statistics.median(times[(name, True)])
        print(f"| {name} | {off * 1e6:.2f} | {on * 1e6:.2f} | {on / off - 1:+.1%} |")
    t0 = time.perf_counter()
    digest([host])
    print(f"one digest of the 256 KiB array (a line's first 12 calls each pay one): {(time.perf_counter() - t0) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
