"""One table per wrapper family; ``ALL_FAMILIES`` is what ``known.registry`` merges."""

from . import equinox, flax, haiku, jax_core

ALL_FAMILIES = (jax_core.TRANSFORMS, equinox.TRANSFORMS, flax.TRANSFORMS)
CALL_CONTEXTS = (*flax.CALL_CONTEXTS,)

PYTREE_BASES = frozenset(jax_core.PYTREE_BASES + equinox.PYTREE_BASES + flax.PYTREE_BASES)
PYTREE_DECORATORS = frozenset(jax_core.PYTREE_DECORATORS + equinox.PYTREE_DECORATORS + flax.PYTREE_DECORATORS)
ARRAY_ATTRIBUTES = {**jax_core.ARRAY_ATTRIBUTES, **equinox.ARRAY_ATTRIBUTES, **flax.ARRAY_ATTRIBUTES}
REBUILT_WHILE_TRACING = frozenset(jax_core.REBUILT_WHILE_TRACING + equinox.REBUILT_WHILE_TRACING
                                  + flax.REBUILT_WHILE_TRACING)
STATIC_FIELD_BASES = frozenset(equinox.STATIC_FIELD_BASES + flax.STATIC_FIELD_BASES)
MODULE_CALL_DATA_INPUTS = equinox.MODULE_CALL_DATA_INPUTS
PYTREE_REGISTER_CALLS = frozenset(jax_core.PYTREE_REGISTER_CALLS)
PLAIN_DATACLASS = jax_core.PLAIN_DATACLASS
MODULE_BASES_TRACED_BY_JIT = frozenset(equinox.MODULE_BASES_TRACED_BY_JIT)
HAIKU_MODULE_BASES = frozenset(haiku.MODULE_BASES)
