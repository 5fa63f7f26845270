"""One table per wrapper family; ``ALL_FAMILIES`` is what ``known.registry`` merges."""

from . import equinox, flax, jax_core

ALL_FAMILIES = (jax_core.TRANSFORMS, equinox.TRANSFORMS, flax.TRANSFORMS)
CALL_CONTEXTS = (*flax.CALL_CONTEXTS,)
