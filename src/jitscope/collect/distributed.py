"""Watch in a ``jax.distributed`` job: which process this is, per-process file names, and the
peers' compile sequences through JAX's own coordination service.

The process index exists only after the program calls ``jax.distributed.initialize``, so the
collector asks (``process_identity``, a read of JAX's state, cheap) at each compile and at the
end; outputs are named then (``run.jsonl`` -> ``run.p0.jsonl``).

Processes share nothing but the coordination service that ``jax.distributed`` already runs
(process 0 hosts it). ``PeerChannel`` publishes each compile to its key-value store under
``jitscope/ev/p<index>/<n>`` and reads everyone's back; no socket, port or protocol of our own.
What the sequences mean (divergence, a program the peers never compiled) is decided by the
caller's ``check`` callable (the command passes ``analyze.divergence`` in), as the watch
collector gets its reasons: collectors import no analyzer.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable

from .. import _jaxcompat
from ..model import CompileEvent

PREFIX = "jitscope/"
_EVENTS = PREFIX + "ev/"
_DONE = PREFIX + "done/"
# The fields a peer needs to compare programs and name them; phases and explanations stay local.
_OPENED = False  # one channel per process (JITSCOPE=watch and jitscope watch in one process: the first)
_SHARED_FIELDS = ("function", "definition", "call_site", "signature", "cache_hit", "index", "timestamp",
                  "transform", "fingerprint", "process_index", "pid")


def process_identity() -> tuple[int, int] | None:
    """``(process_index, process_count)`` in a ``jax.distributed`` job of 2 or more processes, else None."""
    found = _jaxcompat.distributed_process()
    return found if found is not None and found[1] > 1 else None


def process_path(path: str | os.PathLike[str], index: int) -> str:
    """``run.jsonl`` -> ``run.p0.jsonl``: where process ``index`` writes an output named ``path``."""
    root, ext = os.path.splitext(os.fspath(path))
    return f"{root}.p{index}{ext}"


class PeerChannel:
    """This process's compiles, published to the job's key-value store, and its peers', read back."""

    def __init__(self, store: _jaxcompat.KeyValueStore, index: int, count: int) -> None:
        self.store = store
        self.index = index
        self.count = count
        self.published: list[tuple[float, CompileEvent]] = []  # (time.time() when published, event)
        self._lock = threading.Lock()
        self._parsed: dict[str, tuple[int, int, CompileEvent]] = {}

    @classmethod
    def open(cls) -> PeerChannel | None:
        """The channel of this job, or None when this is not a multi-process job (or JAX lacks the store,
        or another session of this process holds the channel: keys are per process, one writer each)."""
        global _OPENED
        ident = process_identity()
        if ident is None or _OPENED:
            return None
        store = _jaxcompat.distributed_store()
        if store is None:
            return None
        _OPENED = True
        return cls(store, *ident)

    def alive(self) -> bool:
        """Whether the job's service is still reachable from here (the program may have called
        ``jax.distributed.shutdown()`` itself before its end)."""
        return _jaxcompat.distributed_store() is not None

    def publish(self, event: CompileEvent) -> bool:
        """Put one compile under ``jitscope/ev/p<index>/<n>``; False when the service refused."""
        data = {k: v for k, v in event.to_dict().items() if k in _SHARED_FIELDS}
        with self._lock:
            n = len(self.published)
            self.published.append((time.time(), event))
        try:
            self.store.set(f"{_EVENTS}p{self.index}/{n:07d}", json.dumps(data, allow_nan=False))
        except Exception:  # noqa: BLE001 - the service is gone (a peer died, exit): watch goes on locally
            return False
        return True

    def finish(self) -> None:
        """Say this process published its last compile (``jitscope/done/p<index>`` = the count)."""
        try:
            self.store.set(f"{_DONE}p{self.index}", str(len(self.published)))
        except Exception:  # noqa: BLE001 - see publish
            pass

    def wait_for_peers(self, timeout_s: float) -> list[int]:
        """Wait (at most ``timeout_s`` in all) until every peer said ``finish``; the ones that did not."""
        deadline = time.monotonic() + timeout_s
        missing = []
        for peer in range(self.count):
            if peer == self.index:
                continue
            try:
                self.store.get(f"{_DONE}p{peer}", max(0.001, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001 - timed out, or the service is gone
                missing.append(peer)
        return missing

    def sequences(self) -> dict[int, list[CompileEvent]]:
        """Every process's published compiles, in its order, by process index (this one included)."""
        out: dict[int, list[tuple[int, CompileEvent]]] = {}
        for key, value in self.store.dir(_EVENTS):
            parsed = self._parsed.get(key)  # each key is written once: parse it once
            if parsed is None:
                parts = key.rstrip("/").split("/")
                try:
                    parsed = (int(parts[-2].lstrip("p")), int(parts[-1]), CompileEvent.from_dict(json.loads(value)))
                except (ValueError, IndexError, TypeError, KeyError):
                    continue  # not one of ours
                self._parsed[key] = parsed
            proc, n, event = parsed
            out.setdefault(proc, []).append((n, event))
        return {p: [e for _, e in sorted(seq, key=lambda t: t[0])] for p, seq in sorted(out.items())}


class PeerWatch:
    """A daemon thread that reads the peers' sequences every ``interval`` seconds and hands them to
    ``check(channel, sequences, now)`` (which warns; it runs on this thread, never the program's)."""

    def __init__(self, channel: PeerChannel, interval: float,
                 check: Callable[[PeerChannel, dict[int, list[CompileEvent]], float], None]) -> None:
        self.channel = channel
        self.interval = interval
        self.check = check
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jitscope-peer-watch", daemon=True)

    def start(self) -> PeerWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        wait = self.interval
        while not self._stop.wait(wait):
            if not self.channel.published:
                continue
            t = time.perf_counter()
            try:
                seqs = self.channel.sequences()
            except Exception:  # noqa: BLE001 - the service went away: nothing more to compare
                return
            try:
                self.check(self.channel, seqs, time.time())
            except Exception:  # noqa: BLE001 - a warning must never take the program down
                return
            # Every read returns every process's whole sequence: in a long job of many processes keep
            # this thread under a tenth of a core by reading less often.
            wait = max(self.interval, 10 * (time.perf_counter() - t))
