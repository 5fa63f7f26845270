"""What does sharing compiles with the peers of a ``jax.distributed`` job cost? Medians, one run:

1. ``publish``: one ``PeerChannel.publish`` (a real compile event as JSON, one ``key_value_set`` to the
   coordination service on localhost), done once per compile on the compiling thread;
2. ``read``: one ``key_value_dir_get`` of every process's sequence (the hang check's once-a-second read),
   with ``--events`` events published;
3. for scale: one trace + lower + compile of a small function (a new shape each time).

The job is one process (the coordination service is the same code for N; process 0 hosts it), so
``PeerChannel`` is built directly on the store. Timings vary with the machine; never used in tests.

    python benchmarks/multiproc_publish.py [--events 200] [--repeats 300]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import jitscope  # noqa: E402
from jitscope import _jaxcompat  # noqa: E402
from jitscope.collect.distributed import PeerChannel  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=300)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    jax.distributed.initialize(f"localhost:{port}", 1, 0)
    store = _jaxcompat.distributed_store()
    assert store is not None, "this JAX has no key-value store (jitscope doctor: distributed_kv)"

    compile_s = []
    with jitscope.watch(findings=False) as w:
        f = jax.jit(lambda x: jnp.tanh(x) * 2 + jnp.sin(x))
        for n in range(1, 31):
            t = time.perf_counter()
            f(jnp.ones(n)).block_until_ready()
            compile_s.append(time.perf_counter() - t)
    event = w.events[-1]
    channel = PeerChannel(store, 0, 2)
    publish = []
    for _ in range(max(args.events, args.repeats)):
        t = time.perf_counter()
        channel.publish(event)
        publish.append(time.perf_counter() - t)
    read = []
    for _ in range(50):
        t = time.perf_counter()
        seqs = channel.sequences()
        read.append(time.perf_counter() - t)
    n = len(seqs[0])
    print(f"JAX {jax.__version__}, {os.cpu_count()} CPUs")
    print(f"publish one compile: median {statistics.median(publish) * 1e6:.0f} us over {len(publish)}")
    print(f"read every sequence ({n} events): median {statistics.median(read) * 1e3:.2f} ms over {len(read)}")
    print(f"compile of a small function: median {statistics.median(compile_s) * 1e3:.1f} ms over {len(compile_s)} "
          f"(publish = {statistics.median(publish) / statistics.median(compile_s):.2%} of it)")
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
