"""The compile-event records: what was called, with what, how long a compile took and why it happened.

``LeafSpec``, ``ArgSignature``, ``Timing``, ``Reason``, ``CacheKeyComponent``, ``PersistentCacheRecord`` and
``CompileEvent`` are made by watch, inspect, compare and scale and read by diff, merge and the renderers. They
live apart from ``model.py``'s records (``Location``, ``Fix``, ``Finding``, ``Environment`` and the trace
evidence) so that ``jitscope lint``, which never makes one, does not create their classes on its way in;
``jitscope.model`` still gives every one of them (``from jitscope.model import CompileEvent``), importing this
module the first time one is asked for (docs/architecture.md, "Records").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._serde import Record
from .records import DTYPE_SHORT, Location


@dataclass(frozen=True)
class LeafSpec(Record):
    """One array leaf of an argument pytree: where it sits, its shape, dtype and weak type."""

    path: str
    shape: tuple[int, ...]
    dtype: str
    weak_type: bool = False
    sharding: str | None = None  # committed jax.Array only: jit keys its cache on it

    def short(self) -> str:
        """Jaxpr notation, e.g. ``f32[1000,1000]``; weak types get a ``~`` prefix like ``~f32[]``."""
        dt = DTYPE_SHORT.get(self.dtype, self.dtype)
        return f"{'~' if self.weak_type else ''}{dt}[{','.join(map(str, self.shape))}]"

    @classmethod
    def of(cls, path: str, value: Any) -> LeafSpec:
        """How jit sees one argument leaf, with the dtype jit computes in.

        NumPy arrays and Python scalars are canonicalised like jit does
        (``jax.dtypes.canonicalize_dtype``: float64 -> float32 and int -> int32 unless x64
        is on; Python scalars are weakly typed). Extended dtypes keep JAX's name
        (``key<fry>``). A committed ``jax.Array`` records its sharding; tracers (a call under
        grad/vmap) their abstract value. Anything else is an opaque leaf named by its type.
        """
        import jax
        import numpy as np

        if isinstance(value, jax.core.Tracer):
            aval = jax.typeof(value)
            return cls(path, tuple(int(d) for d in aval.shape), _dtype_name(aval.dtype),
                       bool(getattr(aval, "weak_type", False)))
        if isinstance(value, jax.Array):
            from ._jaxcompat import array_committed

            sharding = sharding_text(value.sharding) if array_committed(value) else None
            return cls(path, tuple(int(d) for d in value.shape), _dtype_name(value.dtype),
                       bool(getattr(value, "weak_type", False)), sharding)
        if hasattr(value, "shape") and hasattr(value, "dtype"):  # numpy arrays and scalars, ShapeDtypeStruct
            sharding = getattr(value, "sharding", None)  # an AOT jax.ShapeDtypeStruct's, when it has one
            return cls(path, tuple(int(d) for d in value.shape), _dtype_name(value.dtype),
                       bool(getattr(value, "weak_type", False)),
                       None if sharding is None else sharding_text(sharding))
        if isinstance(value, (bool, int, float, complex)):
            # Python scalars trace as weakly typed 0-d arrays of the default width.
            return cls(path, (), _dtype_name(np.dtype(type(value))), weak_type=type(value) is not bool)
        return cls(path, (), type(value).__name__)


def sharding_text(sharding: Any) -> str:
    """A sharding as a user reads it: ``NamedSharding(mesh=('x':8), spec=P('x', None))``,
    ``SingleDeviceSharding(cpu:1)``; other kinds by their ``str`` without the default memory kind.

    Only public attributes (``mesh.shape``, ``spec``, ``device_set``); anything unexpected falls
    back to ``str(sharding)`` so a description never fails.
    """
    try:
        kind = type(sharding).__name__
        memory = getattr(sharding, "memory_kind", None)
        mem = f", memory_kind={memory}" if memory not in (None, "device", _default_memory(sharding)) else ""
        if kind == "NamedSharding":
            mesh = ", ".join(f"{name!r}:{size}" for name, size in sharding.mesh.shape.items())
            ids = [d.id for d in sharding.mesh.devices.flat]
            if ids != list(range(len(ids))):  # not the first devices in order: the assignment matters
                mesh += f" on devices {ids}"
            spec = ", ".join(repr(p) for p in sharding.spec)  # P('x', None) on every JAX (old ones print PartitionSpec)
            return f"NamedSharding(mesh=({mesh}), spec=P({spec}){mem})"
        if kind == "SingleDeviceSharding":
            (device,) = sharding.device_set
            return f"SingleDeviceSharding({device.platform}:{device.id}{mem})"
    except Exception:  # noqa: BLE001 - a new sharding kind: its own text
        pass
    return str(sharding).replace(", memory_kind=device", "")


def _default_memory(sharding: Any) -> str | None:
    """The memory kind a device uses by default (older JAX on CPU: ``unpinned_host``): not worth printing."""
    try:
        return str(next(iter(sharding.device_set)).default_memory().kind)
    except Exception:  # noqa: BLE001 - a JAX without memories: nothing to hide
        return None


def _dtype_name(dtype: Any) -> str:
    """``float32`` for what jit computes ``dtype`` as (canonicalised); ``key<fry>`` for extended dtypes."""
    import jax
    import numpy as np

    if jax.dtypes.issubdtype(dtype, jax.dtypes.extended):
        return str(dtype)
    return str(np.dtype(jax.dtypes.canonicalize_dtype(dtype)))


@dataclass(frozen=True)
class ArgSignature(Record):
    """What jit keys its cache on: array leaves (shape/dtype/weak type), static values, tree structure."""

    leaves: tuple[LeafSpec, ...] = ()
    static: dict[str, str] = field(default_factory=dict)
    treedef: str = ""
    # Parameters the call passed by keyword (jit keys its cache on it: ``f(x, n=3)`` and ``f(x, 3)`` are two
    # compiles). None: not recorded (files older than the field).
    keywords: tuple[str, ...] | None = None
    # The jit options that key the cache besides the arguments, where not the default
    # (``{"donate_argnums": "(0,)"}``; equinox's ``{"donate": "first, rest"}``): two jit objects of one
    # function with other donation compile two programs. Empty: none, or not recorded.
    options: dict[str, str] = field(default_factory=dict)
    # The pytree nodes of the dynamic arguments by path, outermost first (``collect.watch_signature.tree_nodes``):
    # type, number of children, static data. A structure change is named from these node by node, not from
    # the treedef's printed text. Empty: not recorded (files older than the field, very large trees).
    nodes: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if out.get("keywords") is None:
            del out["keywords"]  # optional: absent where not recorded, as in older files
        for key in ("options", "nodes"):
            if not out.get(key):
                out.pop(key, None)  # optional: absent where empty
        return out

    def short(self) -> str:
        parts = [f"{leaf.path}={leaf.short()}" if leaf.path else leaf.short() for leaf in self.leaves]
        parts += [f"{k}={v}" for k, v in self.static.items()]
        return ", ".join(parts)

    @classmethod
    def of(cls, args: tuple = (), kwargs: dict | None = None, static: dict[str, Any] | None = None) -> ArgSignature:
        """Signature of concrete call arguments (arrays, scalars, pytrees of them).

        Leaf paths are those of the ``(args, kwargs)`` tree (``[0][1]['w']``); for paths named by
        parameter (``params['w']``) use ``jitscope.collect.watch_signature.call_signature``.
        Leaves are described by ``LeafSpec.of`` (dtypes canonicalised as jit does).
        """
        import jax

        kwargs = kwargs or {}
        flat, treedef = jax.tree_util.tree_flatten_with_path((tuple(args), kwargs))
        leaves = tuple(LeafSpec.of(jax.tree_util.keystr(path), leaf) for path, leaf in flat)
        return cls(leaves, {k: repr(v) for k, v in (static or {}).items()}, str(treedef))


# How ``collect.watch_signature.static_repr`` ends the text of a static argument hashed by object
# identity (no __eq__/__hash__): ``<Config object at 0x7f..., hashed by identity>``.
IDENTITY_MARK = "hashed by identity"


# ... and of a tuple or frozen dataclass whose members are (functions: an optax GradientTransformation):
# ``<GradientTransformation object at 0x7f... (init=init_fn, update=update_fn), members hashed by identity>``.
# No class can make those compare by value; the fix is to build the object once and pass that one.
MEMBERS_IDENTITY_MARK = "members " + IDENTITY_MARK
# ... and of a function itself (a closure, a ``functools.partial``, a bound method of an identity-hashed object):
# ``<function sgd.<locals>.update object at 0x7f..., a function hashed by identity>`` (equinox's filter_jit makes
# each function leaf of an optax optimizer static).
FUNCTION_IDENTITY_MARK = "a function " + IDENTITY_MARK


def has_identity_members(static_value: str | None) -> bool:
    """Whether a static value's text is a function, or a container whose members hash by identity (functions):
    values no ``__eq__``/``__hash__`` can make equal when rebuilt; the fix is to build them once."""
    text = static_value or ""
    return text.endswith(MEMBERS_IDENTITY_MARK + ">") or text.endswith(FUNCTION_IDENTITY_MARK + ">")


_STATE = re.compile(r"(hashed by identity [0-9a-f]+) state=[0-9a-f]+>")


def identity_bindings(bindings: str | None) -> str | None:
    """``CompileEvent.bindings`` without the objects' state digests (``<Env hashed by identity 7f... state=...>``,
    ``collect/object_state.py``): what identity says. One object whose attributes changed between two compiles (a
    step counter) is still the one object (equal here); two objects differ by address. The digest only tells two
    objects of one class apart by what they hold (``duplicates._per_object``)."""
    return None if bindings is None else _STATE.sub(r"\1>", bindings)


def is_identity_hashed(static_value: str | None) -> bool:
    """Whether a static value's text (``ArgSignature.static``) is an object hashed by identity."""
    return (static_value or "").endswith(IDENTITY_MARK + ">")


@dataclass
class Timing(Record):
    """Repeated measurements of one thing, in ``unit`` (seconds unless stated)."""

    samples: list[float] = field(default_factory=list)
    unit: str = "s"
    median: float | None = None
    min: float | None = None
    max: float | None = None

    def __post_init__(self) -> None:
        if self.samples:
            import statistics  # here: `jitscope lint` never times anything

            self.median = statistics.median(self.samples)
            self.min = min(self.samples)
            self.max = max(self.samples)

    @classmethod
    def single(cls, seconds: float) -> Timing:
        return cls([seconds])


@dataclass
class Reason(Record):
    """Why a compile happened. ``category`` is one of REASON_CATEGORIES; ``detail`` names the argument."""

    category: str
    detail: str = ""
    explanation: str = ""  # JAX's own text, when it gave one


REASON_CATEGORIES = (
    "first_compile",
    "new_function_object",
    "shape_change",
    "dtype_change",
    "weak_type_change",
    "static_value_change",
    "static_unhashable",
    "pytree_change",
    "sharding_change",
    "other",
)


# JAX's names for the parts of a persistent-cache key (``jax._src.cache_key.get``), in its order.
CACHE_KEY_COMPONENTS = ("computation", "jax_lib version", "backend version", "XLA flags", "compile_options",
                        "accelerator_config", "compression", "custom_hook")


@dataclass
class CacheKeyComponent(Record):
    """One named part of a compile's persistent-cache key: JAX hashes each and logs the hash at DEBUG.

    ``hash`` is the first 16 hex digits of that part's own sha256, as ``jax._src.cache_key`` logs
    it ("get_cache_key hash of serialized <name>: ..."), so it can be matched against JAX's log.
    ``value`` is what was hashed, where cheap to know (versions, flags, device count), else None.
    """

    name: str
    hash: str
    value: str | None = None


# Why JAX did not write a compile to its persistent cache (``PersistentCacheRecord.not_written``).
NOT_WRITTEN = ("cache_disabled", "min_compile_time", "not_process_0", "host_callbacks", "min_entry_size", "unknown")


@dataclass
class PersistentCacheRecord(Record):
    """One compile's story with JAX's persistent compilation cache: used or not, hit or miss, written
    or not and why, and what the cache would save on a warm rerun.

    ``outcome``: ``hit`` (loaded from the cache), ``miss`` (compiled), ``disabled`` (the cache was not
    used: no directory, or turned off). ``written`` is None for a hit or when unknown; otherwise
    ``not_written`` names JAX's reason (``NOT_WRITTEN``) with its numbers: ``compile_seconds`` against
    ``min_compile_seconds`` (``jax_persistent_cache_min_compile_time_secs``), ``entry_bytes`` against
    ``min_entry_bytes``. ``rerun_saving_seconds``: backend-compile seconds a rerun skips because this
    compile is in the cache now (written: its compile seconds; hit: what JAX says the load saved).
    """

    enabled: bool = False
    outcome: str = "disabled"
    written: bool | None = None
    not_written: str | None = None
    detail: str = ""  # the cause in words where the numbers do not say it (why the cache is off)
    compile_seconds: float | None = None  # JAX's own backend-compile time, the one it compares
    min_compile_seconds: float | None = None
    entry_bytes: int | None = None
    min_entry_bytes: int | None = None
    saved_seconds: float | None = None  # a hit: JAX's compile_time_saved_sec (whole seconds stored: a lower bound)
    rerun_saving_seconds: float = 0.0
    key: str | None = None  # JAX's key: module name and the sha256 of all components
    components: list[CacheKeyComponent] = field(default_factory=list)

    def component(self, name: str) -> CacheKeyComponent | None:
        """The component JAX calls ``name`` (``CACHE_KEY_COMPONENTS``), None if not recorded."""
        return next((c for c in self.components if c.name == name), None)

    def story(self) -> str:
        """One line: ``miss, not written: compiled in 0.2 s < 1 s``, ``hit (saved 3.1 s)``, ``off``."""
        if not self.enabled or self.outcome == "disabled":
            return "off" + (f" ({self.detail})" if self.detail else "")
        if self.outcome == "hit":
            return "hit" + (f" (saved {self.saved_seconds:.2g} s)" if self.saved_seconds else "")
        if self.written:
            return f"{self.outcome}, written (a warm rerun saves {self.rerun_saving_seconds:.2g} s)"
        if self.written is None and self.not_written is None:
            return self.outcome
        return f"{self.outcome}, not written: {self.why_not_written()}"

    def why_not_written(self) -> str:
        """JAX's reason for not writing, with its numbers: ``compiled in 0.2 s < 1 s``."""
        why = self.not_written or "unknown"
        if why == "min_compile_time" and self.compile_seconds is not None:
            thr = f"{self.min_compile_seconds:g} s" if self.min_compile_seconds is not None else "the threshold"
            return f"compiled in {self.compile_seconds:.2g} s < {thr}"
        if why == "min_entry_size" and self.entry_bytes is not None:
            return f"entry of {self.entry_bytes} bytes < {self.min_entry_bytes} bytes"
        return {"cache_disabled": "cache disabled", "not_process_0": "not process 0 (only process 0 writes)",
                "host_callbacks": "uses host callbacks (jax.debug.print, io_callback, ...)",
                "min_compile_time": "compiled in less than the threshold",
                "min_entry_size": "entry smaller than the minimum size"}.get(why, self.detail or "reason unknown")


@dataclass
class CompileEvent(Record):
    """One trace/lower/compile of a jitted function, where it came from and why."""

    function: str
    definition: Location | None = None
    call_site: Location | None = None
    signature: ArgSignature | None = None
    phases: dict[str, float] = field(default_factory=dict)  # trace / lower / compile seconds
    reason: Reason | None = None
    cache_hit: bool | None = None  # persistent compilation cache
    timestamp: float = 0.0  # seconds since the collector started
    index: int = 0
    function_id: int | None = None  # one number per Python function object (watch: new-object detection)
    phase_starts: dict[str, float] = field(default_factory=dict)  # phase -> start, seconds since collector start
    transform: str | None = None  # watch: compiled under grad/vmap/... ("grad", "vmap", "jvp"); None if plain
    pid: int | None = None  # watch: the process that compiled (a forked child writes its own events file)
    # watch: what the jitted function object binds (partial arguments, closure values, globals it reads;
    # arrays by type only). Two objects from one definition with equal bindings are the same function rebuilt.
    bindings: str | None = None
    # watch: digest of the compiled program's StableHLO with locations and symbol names normalised
    # (equal digests: the same program; collect/program_text.py normalises it). None where not read.
    fingerprint: str | None = None
    # watch: the same digest with every literal constant's value replaced by a placeholder: equal here but
    # not in ``fingerprint``, two programs differ only in constants (a learning rate baked in).
    constants_blind_fingerprint: str | None = None
    # watch in a multi-process job: jax.process_index() of the process that compiled. None in one process.
    process_index: int | None = None
    # watch: this compile and JAX's persistent compilation cache (hit/miss, written or why not, key
    # components). None where not recorded (other commands, files older than the field).
    persistent_cache: PersistentCacheRecord | None = None
    # watch: the ``__module__`` of the user's function (``mypkg.model``; ``__main__`` for the watched script
    # itself): with ``function`` (its qualified name), how ``jitscope warmup`` imports it. None where unknown.
    module: str | None = None
    # watch: when an installed library jitted on the program's behalf (numpyro's ``svi.py``, diffrax's
    # ``_integrate.py``), the innermost frame of that library; ``call_site`` is then the program's own line
    # that called into it. None when the program called JAX directly, and in files older than the field.
    library_site: Location | None = None
    # watch: the wrapper that compiled, by the qualified name ``jaxmodel`` knows it under, where it is not
    # ``jax.jit`` (``equinox.filter_jit``, ``equinox.filter_pmap``, ``jax.pmap``): fixes name only its options.
    wrapper: str | None = None

    # watch: the jit call as values a warm-up rebuilds (``collect/warmup_record.py``: the jitted object's module
    # and attribute path, each argument's tree structure, array specs and static values; or ``why`` not), as
    # one compact JSON text (a model's structure is thousands of nested lists: indented, it would be most of
    # the file). None where not recorded (other commands, files older than the field).
    rebuild: str | None = None

    # watch: the process CPU seconds of the backend compile (XLA compiles on worker threads, so the calling
    # thread's CPU time misses it). Other processes' load does not inflate it, unlike the phases' wall time:
    # JW402 judges on it. None where not measured.
    compile_cpu_seconds: float | None = None
    # watch: the jit options of the jitted object that compiled, where not the defaults
    # (``donate_argnums=(0,)``, ``keep_unused=True``): two objects with other options are two functions.
    jit_options: str | None = None
    # watch under pytest: the node id of the test that was running (parametrization included). Duplicate
    # compiles and fixes are paired only within one test. None outside pytest.
    test: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        for key in ("library_site", "wrapper", "rebuild"):
            if out.get(key) is None:
                out.pop(key, None)  # optional: absent where the program called jax.jit itself
        return out

    @property
    def total_seconds(self) -> float:
        return float(sum(self.phases.values()))
