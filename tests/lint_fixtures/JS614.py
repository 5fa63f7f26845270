"""JS614 fixture: flatten/unflatten pairs that do not round-trip, and look-alikes that do (run under real jit
by tests/test_lint_pytree_round_trip.py)."""

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import jax
from jax.tree_util import register_pytree_node, register_pytree_node_class


@register_pytree_node_class
class Box:
    def __init__(self, lo, n, hi):
        self.lo, self.n, self.hi = lo, n, hi

    def tree_flatten(self):
        return (self.lo, self.hi), (self.n,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, *aux)  # JS614


@register_pytree_node_class
class Pair:
    def __init__(self, mean, scale, count):
        self.mean = mean
        self.scale = scale
        self.count = count

    def tree_flatten(self):
        return (self.mean, self.scale, self.count), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        mean, scale = children  # JS614
        return cls(mean, scale, 0)


class Span:
    def __init__(self, start, stop, step=1.0):
        self.start = start
        self.stop = stop
        self.step = step


def _span_flatten(span):
    return (span.start, span.stop, span.step), None


def _span_unflatten(aux, children):
    start, stop, step = children
    return Span(stop, start, step)  # JS614


register_pytree_node(Span, _span_flatten, _span_unflatten)


@register_pytree_node_class
class Scaled:
    def __init__(self, value, weight=None):
        self.value = value
        self.weight = weight

    def tree_flatten(self):
        return (self.value, self.weight), None

    @classmethod
    def tree_unflatten(cls, aux, children):  # JS614
        value, weight = children
        return cls(value)


# look-alikes that round-trip: lint stays quiet

@register_pytree_node_class
class BoxOk:
    def __init__(self, lo, n, hi):
        self.lo, self.n, self.hi = lo, n, hi

    def tree_flatten(self):
        return (self.lo, self.hi), (self.n,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        lo, hi = children
        return cls(lo, aux[0], hi)


@register_pytree_node_class
class PairOk:
    def __init__(self, mean, scale, count):
        self.mean = mean
        self.scale = scale
        self.count = count

    def tree_flatten(self):
        return (self.mean, self.scale), self.count

    @classmethod
    def tree_unflatten(cls, count, children):
        return cls(*children, count)


@register_pytree_node_class
@dataclass
class Fields:
    a: jax.Array
    b: jax.Array

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@register_pytree_node_class
class Derived:
    """__init__ computes rather than stores: the model makes no claim."""

    def __init__(self, x, y):
        self.total = x + y
        self.x = x

    def tree_flatten(self):
        return (self.x, self.total), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.x, obj.total = children
        return obj


class Flags:
    """Flattened through properties that read private attributes (flax's PytreeState): each value comes back to
    the attribute it came from, so nothing moves."""

    def __init__(self, lo, hi):
        self._lo = lo
        self._hi = hi

    @property
    def lo(self):
        return self._lo

    @property
    def hi(self):
        return self._hi


def _flags_flatten(f):
    return (f.lo, f.hi), None


def _flags_unflatten(_, children):
    lo, hi = children
    return Flags(lo, hi)


register_pytree_node(Flags, _flags_flatten, _flags_unflatten)


@dataclass
class Base:
    a: Any


@register_pytree_node_class
@dataclass
class Sub(Base):
    """The generated __init__ takes the inherited field first: (a, b, c). Not modelled, so no claim."""

    b: Any
    c: Any

    def tree_flatten(self):
        return (self.b, self.c), (self.a,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*aux, *children)


@register_pytree_node_class
@dataclass
class NoInit:
    """``field(init=False)`` is no parameter of __init__: (x, z)."""

    x: Any
    cache: Any = field(init=False, default=None)
    z: Any = 0

    def tree_flatten(self):
        return (self.x, self.z), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@register_pytree_node_class
@dataclass
class KwOnly:
    """Fields after ``KW_ONLY`` are keyword-only."""

    x: Any
    _: dataclasses.KW_ONLY
    y: Any = 0
    z: Any = 0

    def tree_flatten(self):
        return (self.x, self.z), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], z=children[1])


def make(x):
    """One instance of each class, built from the array ``x`` (the tests run each through jit)."""
    return [Box(x, 3, x + 1), Pair(x, x + 1, x + 2), Span(x, x + 1, x + 2), Scaled(x, x + 1),
            BoxOk(x, 3, x + 1), PairOk(x, x + 1, 2), Fields(x, x + 1), Derived(x, x + 1), Flags(x, x + 1),
            Sub(x, x + 1, x + 2), NoInit(x, z=x + 2), KwOnly(x, z=x + 2)]
