"""JS612 non-array-pytree-leaf; run under real jax in tests/test_lint_pytree_leaf_types.py."""
import dataclasses
from typing import Callable, Literal, Optional

import equinox as eqx
import jax
from flax import struct


class Modifier(eqx.Module):
    scale: jax.Array
    mode: str = "multiplicative"  # JS612
    key_template: Literal["a", "b"] = "a"  # JS612


class Operator(eqx.Module):
    matrix: jax.Array
    tags: frozenset[object] = frozenset()  # JS612


class Tagged(Operator):
    label: Optional[str] = None  # JS612


@struct.dataclass
class State:
    x: jax.Array
    name: str = "state"  # JS612
    apply_fn: Callable = print  # JS612


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    x: jax.Array
    kind: type = float  # JS612


@dataclasses.dataclass
class Registered:
    x: jax.Array
    unit: str
    label: str


jax.tree_util.register_dataclass(Registered, data_fields=["x", "unit"], meta_fields=["label"])  # JS612


# look-alikes: declared static, numbers, unannotated, functions in equinox, plain classes
class StaticModifier(eqx.Module):
    scale: jax.Array
    mode: str = eqx.field(static=True, default="multiplicative")
    tags: frozenset = eqx.field(static=True, default=frozenset())
    activation: Callable = jax.nn.relu
    n: int = 3


@struct.dataclass
class StaticState:
    x: jax.Array
    name: str = struct.field(pytree_node=False, default="state")
    apply_fn: Callable = struct.field(pytree_node=False, default=print)


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class StaticParams:
    x: jax.Array
    kind: str = dataclasses.field(default="f", metadata=dict(static=True))


@dataclasses.dataclass
class Config:
    name: str = "plain"


@dataclasses.dataclass
class Grid:
    values: jax.Array
    shape: tuple[int, ...]
    factor: int


jax.tree_util.register_dataclass(
    Grid,
    data_fields=[
        "values",
        "shape",  # JS612
        "factor",
    ],
    meta_fields=[],
)


@struct.dataclass
class FlaxGrid:
    values: jax.Array
    shape: tuple[int, int] = struct.field(pytree_node=False, default=(2, 1))
    step: int = 0
