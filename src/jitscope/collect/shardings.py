"""How a compiled program lays its inputs and outputs over devices: sharding and per-device shape.

Reads the public ``Compiled.input_shardings`` / ``output_shardings`` and the traced output
types (``Traced.out_info``), and ``Sharding.shard_shape`` for the shape each device holds. A
program on one device has no layout worth showing: ``shard_layout`` returns None for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..model import sharding_text


@dataclass
class ShardedValue(Record):
    """One input or output leaf: its global shape, its sharding, the shape each device holds."""

    path: str
    shape: tuple[int, ...]
    dtype: str
    sharding: str  # model.sharding_text
    shard_shape: tuple[int, ...]
    replicated: bool = False  # every device holds the whole value


@dataclass
class ShardLayout(Record):
    """The inputs and outputs of a program that spans several devices."""

    devices: int = 1
    inputs: list[ShardedValue] = field(default_factory=list)
    outputs: list[ShardedValue] = field(default_factory=list)


def _value(path: str, aval: Any, sharding: Any) -> ShardedValue:
    shape = tuple(int(d) for d in getattr(aval, "shape", ()))
    try:
        shard = tuple(int(d) for d in sharding.shard_shape(shape))
    except Exception:  # noqa: BLE001 - an unusual sharding: show the global shape
        shard = shape
    replicated = bool(getattr(sharding, "is_fully_replicated", False))
    return ShardedValue(path, shape, str(getattr(aval, "dtype", "")), sharding_text(sharding), shard, replicated)


def _leaves(tree: Any) -> list[tuple[str, Any]]:
    import jax

    return [(jax.tree_util.keystr(p), v) for p, v in jax.tree_util.tree_flatten_with_path(tree)[0]]


def shard_layout(compiled: Any, traced: Any, arg_paths: list[str] | None = None) -> ShardLayout | None:
    """The per-device layout of ``compiled``'s inputs and outputs; None on one device or if unknown.

    ``arg_paths`` names the input leaves (the call signature's paths) when their count matches.
    """
    try:
        in_shardings = _leaves(compiled.input_shardings)
        out_shardings = [s for _, s in _leaves(compiled.output_shardings)]
        in_avals = [v for _, v in _leaves(compiled.in_avals)]
    except Exception:  # noqa: BLE001 - an older JAX without these: no layout
        return None
    try:
        out_info = _leaves(traced.out_info)
    except Exception:  # noqa: BLE001 - a JAX whose Traced has no out_info: inputs only
        out_info = []
    devices = {d for _, s in in_shardings for d in s.device_set} | {d for s in out_shardings for d in s.device_set}
    if len(devices) <= 1:
        return None
    layout = ShardLayout(devices=len(devices))
    names = arg_paths if arg_paths and len(arg_paths) == len(in_shardings) else [p for p, _ in in_shardings]
    for i, (name, (_, sharding)) in enumerate(zip(names, in_shardings, strict=True)):
        if i < len(in_avals):
            layout.inputs.append(_value(name, in_avals[i], sharding))
    for (path, aval), sharding in zip(out_info, out_shardings, strict=False):
        layout.outputs.append(_value(path or "output", aval, sharding))
    return layout
