"""Per compile, JAX's persistent compilation cache: used or not, hit or miss, written or not and why,
and the cache key's components (their hashes and, where cheap, their values).

Why from logs: JAX tells the key's components and its reasons not to write only in its own log lines
(``jax._src.cache_key`` at DEBUG, ``jax._src.compiler`` / ``jax._src.compilation_cache`` at DEBUG, or
WARNING under ``jax_explain_cache_misses``), on the compiling thread, before the backend-compile
monitoring span ends. While a watch runs, a handler on those three loggers reads them
(``_jaxcompat.parse_cache_log`` knows the texts); the capture engine (``monitoring.py``) calls
``take`` as each compile's span ends and gets that compile's ``PersistentCacheRecord``.

The loggers are set to DEBUG while watching (else JAX never formats the key lines), so the handler
passes on only what the logger would have passed on before, to the handlers it had before: a user's
logging setup sees no extra lines. Cost: with DEBUG on, JAX hashes each key component twice (once for
the key, once for the log line). JAX 0.10 computes a key for every compile even with no cache
directory, so the key logger is at DEBUG only while ``jax_compilation_cache_dir`` is set (checked as
each compile's options are logged, just before its key): a watch without a cache pays nothing.

Public signals first: hit, miss and written also come from ``jax.monitoring`` events
(``compile_requests_use_cache``, ``cache_hits``, ``cache_misses``) and the saving from
``compile_time_saved_sec``, so a JAX whose log texts changed still says hit/miss/written.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from .. import _jaxcompat as compat
from ..model import CacheKeyComponent, PersistentCacheRecord

HASH_DIGITS = 16  # of each component's sha256: enough to tell two apart, short enough for every event


@dataclass
class _Pending:
    """What this thread's current compile has logged so far."""

    components: dict[str, str] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)  # what the compile options are known to hold
    requested: bool = False  # compile_requests_use_cache: the cache was consulted
    outcome: str | None = None
    key: str | None = None
    written: bool | None = None
    not_written: str | None = None
    numbers: dict[str, str] = field(default_factory=dict)
    saved: float | None = None


class _Local(threading.local):
    def __init__(self) -> None:
        self.pending = _Pending()


_local = _Local()
_process_values: dict[str, str] = {}  # component name -> value: fixed for the life of the process
_said: list[bool] = []
_key_logger: list[Any] = []  # while installed: [logger, its own level before, whether DEBUG is on now]


def _pending() -> _Pending:
    return _local.pending


def _note(kind: str, fields: dict[str, str]) -> None:
    p = _pending()
    if kind == "compile_options":
        _local.pending = p = _Pending()  # JAX builds a compile's options before its key: a new compile
        _key_lines(bool(_config("jax_compilation_cache_dir")))
        p.options.append(f"num_replicas={fields['replicas']} num_partitions={fields['partitions']}")
    elif kind == "xla_cache_dir":
        if compat.xla_cache_in_key(fields["what"]):  # else not part of the key (0.12's autotuning cache)
            p.options.append(f"XLA {fields['what']} cache {fields['path']}")
    elif kind == "component":
        if fields["name"] == "computation" and p.components:
            p.components, p.flags = {}, []  # a second key for one compile (PGLE): the last one counts
        p.components[fields["name"]] = fields["hash"][:HASH_DIGITS]
        p.requested = True
    elif kind == "xla_flag":
        p.flags.append(fields["flag"])
    elif kind in ("hit", "miss"):
        p.outcome, p.key, p.requested = kind, fields.get("key"), True
    elif kind == "written":
        p.written, p.not_written = True, None
    elif kind == "compile_seconds":
        p.numbers.update(fields)
    else:  # a reason not to write
        p.written, p.not_written = False, kind
        p.numbers.update(fields)


class _CacheLogHandler(logging.Handler):
    """Reads JAX's cache lines; passes each on only where its logger would have without jitscope."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        # logger name -> (its own level before, whether it propagated, its own handlers)
        self.before: dict[str, tuple[int, bool, list[logging.Handler]]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            found = compat.parse_cache_log(record.name, record.getMessage())
            if found is not None:
                _note(*found)
        except Exception:  # a log line must never break the user's compile
            pass
        self._forward(record)

    def _forward(self, record: logging.LogRecord) -> None:
        before = self.before.get(record.name)
        if before is None:
            return
        own, propagate, handlers = before
        logger = logging.getLogger(record.name)
        # The level it would have now: the user may configure logging after the watch started.
        level = own or (logger.parent.getEffectiveLevel() if logger.parent is not None else logging.WARNING)
        if record.levelno < level:
            return
        found = 0
        for h in handlers:
            found += 1
            if record.levelno >= h.level:
                h.handle(record)
        parent = logger.parent if propagate else None
        while parent is not None:  # what Logger.callHandlers does above the logger
            for h in parent.handlers:
                found += 1
                if record.levelno >= h.level:
                    h.handle(record)
            parent = parent.parent if parent.propagate else None
        last = logging.lastResort
        if not found and last is not None and record.levelno >= last.level:
            last.handle(record)


def install() -> Any:
    """Attach the handler to JAX's cache loggers (DEBUG while watching); returns the uninstaller.

    Call it after anything else that changes those loggers (the explain-mode setup), and uninstall
    before that is undone: this saves and restores each logger's level, propagation and handlers.
    """
    handler = _CacheLogHandler()
    loggers = [logging.getLogger(name) for name in compat.CACHE_LOGGERS]
    saved = []
    for lg in loggers:
        handler.before[lg.name] = (lg.level, lg.propagate, list(lg.handlers))
        saved.append((lg, lg.level, lg.propagate, list(lg.handlers)))
        for h in list(lg.handlers):
            lg.removeHandler(h)
        lg.addHandler(handler)
        lg.propagate = False
        if lg.name != compat.CACHE_KEY_LOGGER:
            lg.setLevel(logging.DEBUG)
        else:
            _key_logger[:] = [lg, lg.level, False]
    _key_lines(bool(_config("jax_compilation_cache_dir")))
    _local.pending = _Pending()

    def uninstall() -> None:
        _key_logger.clear()
        for lg, level, propagate, handlers in saved:
            lg.removeHandler(handler)
            for h in handlers:
                if h not in lg.handlers:
                    lg.addHandler(h)
            lg.propagate = propagate
            lg.setLevel(level)

    return uninstall


def _key_lines(on: bool) -> None:
    """DEBUG on JAX's cache-key logger (each component's hash logged, at the cost of hashing it twice)
    only while a cache directory is set."""
    if _key_logger and _key_logger[2] != on:
        logger, level, _ = _key_logger
        logger.setLevel(logging.DEBUG if on else level)
        _key_logger[2] = on


def on_event(event: str) -> None:
    """A ``jax.monitoring`` event of the compiling thread (the public hit/miss/written signals)."""
    p = _pending()
    if event == "/jax/compilation_cache/compile_requests_use_cache":
        p.requested = True
    elif event == "/jax/compilation_cache/cache_hits":
        p.outcome = "hit"
    elif event == "/jax/compilation_cache/cache_misses":  # JAX counts a *write* as a cache miss
        p.written, p.not_written = True, None


def on_saved(seconds: float) -> None:
    """JAX's ``compile_time_saved_sec`` for the current compile (a hit)."""
    _pending().saved = max(float(seconds), 0.0)


def take(compile_seconds: float) -> PersistentCacheRecord:
    """This thread's compile just ended (its backend-compile span): its record; starts the next one.

    ``compile_seconds``: the compile phase as monitoring measured it, used where JAX logged no time.
    """
    p = _pending()
    _local.pending = _Pending()
    if (not p.requested and p.outcome is None) or not _config("jax_compilation_cache_dir"):
        # JAX 0.10 computes a key and "misses" with no directory set: the cache is off all the same.
        return PersistentCacheRecord(enabled=False, outcome="disabled", not_written="cache_disabled",
                                     detail=_why_off())
    rec = PersistentCacheRecord(enabled=True, outcome=p.outcome or "miss", key=p.key)
    if rec.outcome == "hit":
        rec.saved_seconds = p.saved
        rec.rerun_saving_seconds = p.saved or 0.0
    else:
        rec.written, rec.not_written = p.written, p.not_written
        jax_seconds = p.numbers.get("seconds")
        rec.compile_seconds = float(jax_seconds) if jax_seconds is not None else compile_seconds
        if "min" in p.numbers:
            rec.min_compile_seconds = float(p.numbers["min"])
        if "bytes" in p.numbers:
            rec.entry_bytes, rec.min_entry_bytes = int(p.numbers["bytes"]), int(p.numbers["min_bytes"])
        if rec.written:
            rec.rerun_saving_seconds = max(compile_seconds, rec.compile_seconds or 0.0)
    if rec.min_compile_seconds is None:
        rec.min_compile_seconds = _config("jax_persistent_cache_min_compile_time_secs")
    rec.components = _components(p)
    if not rec.components and not _said:
        _said.append(True)
        compat.say_cache_key_missing()
    return rec


def _components(p: _Pending) -> list[CacheKeyComponent]:
    values = dict(_values())
    values["XLA flags"] = " ".join(p.flags) if p.flags else "none"
    if p.options:
        values["compile_options"] = ", ".join(p.options)
    return [CacheKeyComponent(name, digest, values.get(name)) for name, digest in p.components.items()]


def _values() -> dict[str, str]:
    """The components that are the same for every compile of the process, read once, lazily (the
    backend is initialised by then: reading devices earlier would fix the device count before the
    watched program sets its XLA flags)."""
    if not _process_values:
        try:
            import jax
            import jaxlib

            dev = jax.devices()[0]
            client = getattr(dev, "client", None)
            _process_values.update({
                "jax_lib version": f"jaxlib {getattr(jaxlib, '__version__', '?')} (jax {jax.__version__})",
                "backend version": _backend_version(client, dev.platform),
                "accelerator_config": f"{jax.device_count()} {dev.device_kind} device"
                                      + ("s" if jax.device_count() != 1 else ""),
            })
        except Exception:  # values are a courtesy; the hashes are the record
            pass
    return _process_values


def _backend_version(client: Any, platform: str) -> str:
    if client is None:
        return platform
    version = str(client.platform_version)
    return client.platform if version == client.platform else f"{client.platform} {version}"


def _config(name: str) -> Any:
    try:
        import jax

        return getattr(jax.config, name)
    except Exception:
        return None


def _why_off() -> str:
    if not _config("jax_compilation_cache_dir"):
        return "jax_compilation_cache_dir is not set"
    if _config("jax_enable_compilation_cache") is False:
        return "jax_enable_compilation_cache is off"
    return "JAX did not use it for this compile"
