"""The per-object state digest reads attributes by type, never through an object's own properties."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jitscope.collect.object_state import state_digest


class Lazy:
    """An attribute value whose ``shape``/``dtype`` are properties with a side effect (a user's lazy loader)."""

    reads = 0

    @property
    def shape(self):
        Lazy.reads += 1
        return (3,)

    @property
    def dtype(self):
        Lazy.reads += 1
        return np.float32


class Env:
    def __init__(self, scale, data):
        self.scale, self.data, self.loader = scale, data, Lazy()


def test_no_property_of_an_attribute_value_runs():
    Lazy.reads = 0
    assert state_digest(Env(1.0, np.zeros(3))) is not None
    assert Lazy.reads == 0  # before: 2 (getattr(v, "shape") / "dtype" ran the properties)


def test_arrays_by_value_or_by_shape_and_numbers_by_value():
    a, b = state_digest(Env(1.0, np.zeros(3))), state_digest(Env(1.0, np.zeros(3)))
    assert a == b
    assert state_digest(Env(2.0, np.zeros(3))) != a  # another setting: another digest
    assert state_digest(Env(1.0, np.ones(3))) != a  # a small NumPy array by value
    assert state_digest(Env(1.0, np.float32(1))) != state_digest(Env(1.0, np.float32(2)))  # NumPy scalars too
    # a jax.Array by shape and dtype only (its value is never read)
    assert state_digest(Env(1.0, jnp.zeros(3))) == state_digest(Env(1.0, jnp.ones(3)))
    assert state_digest(Env(1.0, jnp.zeros(3))) != state_digest(Env(1.0, jnp.zeros(4)))
