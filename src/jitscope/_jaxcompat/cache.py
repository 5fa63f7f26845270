"""The persistent compilation cache's log lines, parsed."""

from __future__ import annotations

from ._base import _say_missing

# --- watch: the persistent compilation cache --------------------------------
# Checked on JAX 0.10.2. ``jax._src.cache_key.get`` builds the key from named components and, when
# its logger is enabled for DEBUG, logs each component's own sha256 ("get_cache_key hash of serialized
# <name>: <hex>") and each XLA flag it includes. ``jax._src.compiler`` logs the compile options (DEBUG),
# the hit or miss, and why ``_cache_write`` did not write (WARNING under jax_explain_cache_misses, else
# DEBUG); ``jax._src.compilation_cache`` logs the write, or a size or disabled-cache refusal. All on the
# compiling thread, before the backend-compile monitoring span ends. The texts are parsed here only.
CACHE_KEY_LOGGER = "jax._src.cache_key"
CACHE_LOGGERS = (CACHE_KEY_LOGGER, "jax._src.compiler", "jax._src.compilation_cache")

_CACHE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("component", r"get_cache_key hash of serialized (?P<name>.+?): (?P<hash>[0-9a-f]+)$"),
    ("xla_flag", r"Including XLA flag in cache key: (?P<flag>.*)$"),
    ("compile_options", r"get_compile_options: num_replicas=(?P<replicas>\d+) num_partitions=(?P<partitions>\d+)"),
    # The persistent cache's directory goes into the compile options' debug options (GPU caches XLA
    # keeps beside it); whether that changes the key depends on the JAX: ``xla_cache_in_key``.
    ("xla_cache_dir", r"Enabling XLA (?P<what>autotuning|kernel) cache at '(?P<path>.*)'$"),
    ("hit", r"Persistent compilation cache hit for '(?P<module>[^']*)' with key '?(?P<key>[^']*)'?$"),
    ("miss", r"PERSISTENT COMPILATION CACHE MISS for '(?P<module>[^']*)' with key '?(?P<key>[^']*)'?$"),
    ("not_process_0", r"Not writing persistent cache entry since process_id != 0"),
    ("host_callbacks", r"Not writing persistent cache entry for '.*' because it uses host callbacks"),
    ("min_compile_time", r"Not writing persistent cache entry for '.*' because it took < (?P<min>[0-9.]+) "
                         r"seconds to compile \((?P<seconds>[0-9.]+)s\)"),
    ("compile_seconds", r"'.*' took at least (?P<min>[0-9.]+) seconds to compile \((?P<seconds>[0-9.]+)s\)"),
    ("min_entry_size", r"Not writing persistent cache entry with key .* since its size \((?P<bytes>\d+) bytes\) "
                       r"is less than threshold \((?P<min_bytes>-?\d+) bytes\)"),
    ("cache_disabled", r"Not writing persistent cache entry with key .* since cache is disabled"),
    ("written", r"Writing .* to persistent compilation cache with key"),
)
_CACHE_RES: list = []


def parse_cache_log(logger_name: str, message: str) -> tuple[str, dict[str, str]] | None:
    """What one of JAX's persistent-cache log lines says: ``(kind, fields)`` or None for others.

    Kinds: ``component`` (name, hash), ``xla_flag`` (flag), ``compile_options`` (replicas,
    partitions), ``xla_cache_dir`` (what, path), ``hit``/``miss`` (module, key), ``written``, ``compile_seconds`` (min, seconds) and
    the reasons not to write: ``not_process_0``, ``host_callbacks``, ``min_compile_time`` (min,
    seconds), ``min_entry_size`` (bytes, min_bytes), ``cache_disabled``. ``logger_name`` is unused
    today; it is passed so a JAX that moves a message between loggers changes only this function.
    """
    import re

    if not _CACHE_RES:
        _CACHE_RES.extend((kind, re.compile(rx)) for kind, rx in _CACHE_PATTERNS)
    for kind, rx in _CACHE_RES:
        m = rx.search(message)
        if m is not None:
            return kind, m.groupdict()
    return None


# The debug option each "Enabling XLA <what> cache" line sets (jax._src.compiler.get_compile_options).
XLA_CACHE_OPTIONS = {"autotuning": "xla_gpu_per_fusion_autotune_cache_dir", "kernel": "xla_gpu_kernel_cache_file"}
_IN_KEY: dict[str, bool] = {}


def xla_cache_in_key(what: str) -> bool:
    """Whether the directory of XLA's ``what`` cache (``autotuning``, ``kernel``), which JAX puts beside the
    persistent cache in the compile options, is part of the persistent-cache key: so that moving the cache
    directory misses every entry. Read from JAX's own list of XLA options it clears before hashing the
    compile options (``jax._src.cache_key.xla_flags_to_exclude_from_cache_key``): 0.6 - 0.10 hash the
    autotuning directory, 0.12 clears it (and still hashes the kernel cache file)."""
    if what not in _IN_KEY:
        try:
            from jax._src import cache_key

            excluded = {str(f).strip("-") for f in cache_key.xla_flags_to_exclude_from_cache_key}
            _IN_KEY[what] = XLA_CACHE_OPTIONS.get(what, "") not in excluded
        except (ImportError, AttributeError):  # cannot tell: keep it, as the key's value, like before
            _IN_KEY[what] = True
    return _IN_KEY[what]


def cache_refuses_host_callbacks() -> bool:
    """Whether this JAX refuses to write a program with host callbacks (``jax.debug.print``, ``io_callback``)
    to the persistent cache: ``jax._src.compiler._cache_write`` takes the program's ``host_callbacks`` and
    logs "because it uses host callbacks" (0.6 - 0.10); 0.12 dropped the parameter and caches such programs
    like any other. Read from the function's signature; False when this JAX has no such function."""
    import inspect

    try:
        from jax._src import compiler

        return "host_callbacks" in inspect.signature(compiler._cache_write).parameters
    except (ImportError, AttributeError, TypeError, ValueError):
        return False


def cache_key_logging() -> str | None:
    """None when this JAX logs per-component cache-key hashes where ``parse_cache_log`` reads them;
    else why not (``watch`` then records hit/miss/written without the key's components)."""
    try:
        from jax._src import cache_key
    except ImportError as e:
        return f"jax._src.cache_key is missing ({e})"
    if getattr(getattr(cache_key, "logger", None), "name", None) != CACHE_KEY_LOGGER:
        return f"jax._src.cache_key has no logger named {CACHE_KEY_LOGGER}"
    if not callable(getattr(cache_key, "_log_cache_key_hash", None)):
        return "jax._src.cache_key._log_cache_key_hash is missing (no per-component hashes logged)"
    return None


def say_cache_key_missing() -> None:
    """The one notice ``watch`` prints when this JAX cannot give the cache key's components."""
    why = cache_key_logging()
    if why is not None:
        _say_missing("cache_key_log", RuntimeError(why))
