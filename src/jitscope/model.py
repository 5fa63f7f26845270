"""The shared records every command speaks: where, what was called, how long, what went wrong.

These are deliberately small and plain. Collectors produce them, analyzers read
and derive them, renderers display them, and all of them round-trip through JSON
(see ``jitscope/schema/records.schema.json``). Later commands reuse these rather
than inventing their own shapes.
"""

from __future__ import annotations

import dataclasses
import platform
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any, Literal

from ._serde import Record

Severity = Literal["error", "warning", "info"]
FixSafety = Literal["safe", "unsafe", "advice"]

# Short dtype names in jaxpr notation, both directions.
DTYPE_SHORT = {
    "float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
    "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
    "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
    "bool": "bool", "complex64": "c64", "complex128": "c128",
}
DTYPE_LONG = {v: k for k, v in DTYPE_SHORT.items()}


@dataclass(frozen=True)
class Location(Record):
    """A place in source code. ``line`` and ``column`` are 1-based; column may be unknown."""

    file: str
    line: int
    column: int | None = None
    function: str | None = None
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        col = f":{self.column}" if self.column else ""
        fn = f" in {self.function}" if self.function else ""
        return f"{self.file}:{self.line}{col}{fn}"


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


@dataclass(frozen=True)
class ArgSignature(Record):
    """What jit keys its cache on: array leaves (shape/dtype/weak type), static values, tree structure."""

    leaves: tuple[LeafSpec, ...] = ()
    static: dict[str, str] = field(default_factory=dict)
    treedef: str = ""

    def short(self) -> str:
        parts = [f"{leaf.path}={leaf.short()}" if leaf.path else leaf.short() for leaf in self.leaves]
        parts += [f"{k}={v}" for k, v in self.static.items()]
        return ", ".join(parts)

    @classmethod
    def of(cls, args: tuple = (), kwargs: dict | None = None, static: dict[str, Any] | None = None) -> ArgSignature:
        """Signature of concrete call arguments (arrays, scalars, pytrees of them)."""
        import jax
        import numpy as np

        kwargs = kwargs or {}
        flat, treedef = jax.tree_util.tree_flatten_with_path((tuple(args), kwargs))
        leaves = []
        for path, leaf in flat:
            p = jax.tree_util.keystr(path)
            if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
                weak = bool(getattr(leaf, "weak_type", False))
                try:
                    dtype = str(np.dtype(leaf.dtype))
                except TypeError:  # extended dtypes, e.g. typed PRNG keys: key<fry>
                    dtype = str(leaf.dtype)
                leaves.append(LeafSpec(p, tuple(int(d) for d in leaf.shape), dtype, weak))
            elif isinstance(leaf, (bool, int, float, complex)):
                # Python scalars trace as weakly typed 0-d arrays.
                dt = {bool: "bool", int: "int32", float: "float32", complex: "complex64"}[type(leaf)]
                leaves.append(LeafSpec(p, (), dt, weak_type=type(leaf) is not bool))
            else:
                leaves.append(LeafSpec(p, (), type(leaf).__name__))
        return cls(tuple(leaves), {k: repr(v) for k, v in (static or {}).items()}, str(treedef))


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

    @property
    def total_seconds(self) -> float:
        return float(sum(self.phases.values()))


@dataclass
class Fix(Record):
    """A suggested change. ``safety='safe'`` fixes never change behaviour and may be applied automatically."""

    title: str
    description: str = ""
    safety: FixSafety = "advice"
    replacement: str | None = None
    location: Location | None = None
    saving_seconds: float | None = None
    saving_compiles: int | None = None


@dataclass
class Finding(Record):
    """A diagnosed problem: a lint rule hit, a tracer error, graph bloat, a stale capture."""

    code: str
    message: str
    severity: Severity = "warning"
    location: Location | None = None
    name: str = ""
    fix: Fix | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Environment(Record):
    """The machine and versions a result was measured on; every result carries one."""

    python: str = ""
    platform: str = ""
    jax: str = ""
    jaxlib: str = ""
    backend: str = ""
    devices: list[str] = field(default_factory=list)
    cpu_count: int = 0
    jitscope: str = ""

    @classmethod
    def capture(cls, with_jax: bool = True) -> Environment:
        import os

        from . import __version__

        env = cls(
            python=sys.version.split()[0],
            platform=platform.platform(),
            cpu_count=os.cpu_count() or 0,
            jitscope=__version__,
        )
        if with_jax:
            import jax
            import jaxlib

            env = dataclasses.replace(
                env,
                jax=jax.__version__,
                jaxlib=getattr(jaxlib, "__version__", ""),
                backend=jax.default_backend(),
                devices=[str(d) for d in jax.devices()],
            )
        return env
