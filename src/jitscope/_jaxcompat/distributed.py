"""watch in a jax.distributed job: the process index and the coordination service's key-value store."""

from __future__ import annotations

import sys

from ._base import _say_missing

# --- watch in a jax.distributed job -------------------------------------------------
# Checked on JAX 0.10.2 (0.6 - 0.10 have the same State fields and client methods). The process
# index is read from ``jax._src.distributed.global_state``, never from ``jax.process_index()``:
# that one initialises the backends, and a backend started before ``jax.distributed.initialize``
# makes the program's own initialize fail. The key-value store is the coordination service's
# (``DistributedRuntimeClient.key_value_set`` / ``blocking_key_value_get`` / ``key_value_dir_get``).

_KV_METHODS = ("key_value_set", "blocking_key_value_get", "key_value_dir_get")


def distributed_process() -> tuple[int, int] | None:
    """``(process_index, process_count)`` once ``jax.distributed.initialize`` ran in this process,
    else None. Reads state only: never imports or starts anything (cheap enough for every compile).
    Still answers after JAX's exit-time shutdown, which drops the client but keeps the numbers."""
    mod = sys.modules.get("jax._src.distributed")
    state = getattr(mod, "global_state", None)
    if state is None:
        return None
    count = getattr(state, "num_processes", 1)
    if getattr(state, "client", None) is None and not (isinstance(count, int) and count > 1):
        return None
    index = getattr(state, "process_id", None)
    if not isinstance(index, int) or not isinstance(count, int):
        return None
    return index, count


class KeyValueStore:
    """The coordination service's key-value store of a ``jax.distributed`` job, as three calls.

    Values are strings. Every call may raise (the service is gone at exit, a peer died): callers
    catch ``Exception`` and degrade, they never stop the user's program.
    """

    def __init__(self, client: object) -> None:
        self._client = client

    def set(self, key: str, value: str) -> None:
        self._client.key_value_set(key, value, allow_overwrite=True)  # type: ignore[attr-defined]

    def get(self, key: str, timeout_s: float) -> str:
        """The value, waiting up to ``timeout_s`` for a peer to set it (raises when it does not)."""
        return str(self._client.blocking_key_value_get(key, max(1, int(timeout_s * 1000))))  # type: ignore[attr-defined]

    def dir(self, prefix: str) -> list[tuple[str, str]]:
        """Every ``(key, value)`` under ``prefix`` (a directory: ends with ``/``)."""
        return [(str(k), str(v)) for k, v in self._client.key_value_dir_get(prefix)]  # type: ignore[attr-defined]


def distributed_store() -> KeyValueStore | None:
    """The job's key-value store, or None (not a ``jax.distributed`` job, already shut down, or a
    JAX whose client lacks the calls: then one line says what is disabled)."""
    mod = sys.modules.get("jax._src.distributed")
    client = getattr(getattr(mod, "global_state", None), "client", None)
    if client is None:
        return None
    missing = [m for m in _KV_METHODS if not callable(getattr(client, m, None))]
    if missing:
        _say_missing("distributed_kv", AttributeError(f"DistributedRuntimeClient has no {', '.join(missing)}"))
        return None
    return KeyValueStore(client)


def _distributed_kv_missing() -> str | None:
    from jax._src import distributed

    state = getattr(distributed, "global_state", None)
    for name in ("process_id", "num_processes", "client"):
        if not hasattr(type(state), name) and not hasattr(state, name):
            return f"jax._src.distributed.global_state has no {name}"
    try:
        from jax._src.lib import _jax as ext
    except ImportError:
        from jax._src.lib import xla_extension as ext  # type: ignore[no-redef]  # JAX < 0.7
    cls = getattr(ext, "DistributedRuntimeClient", None)
    missing = [m for m in _KV_METHODS if not callable(getattr(cls, m, None))]
    return f"DistributedRuntimeClient has no {', '.join(missing)}" if missing else None
