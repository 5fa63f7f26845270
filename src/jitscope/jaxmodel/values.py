"""What JAX's values answer without running: the guards that tell a tracer from a concrete value.

Code that asks whether a value is a tracer runs its other branch only on concrete values
(``isinstance(x, jax.core.Tracer)`` is True exactly under a transformation: tests/test_jaxmodel.py);
code inside ``try: ... except TypeError`` handles a failed concretization on purpose (JAX's
``ConcretizationTypeError`` and ``TracerBoolConversionError`` derive from ``TypeError``). lint's
tracing model reads these tables (lint/guards.py).
"""

from __future__ import annotations

# isinstance(x, <one of these>) is True only for a tracer (any name ending in "Tracer" counts:
# jax.core.Tracer, DynamicJaxprTracer, BatchTracer, JVPTracer).
TRACER_TYPE_SUFFIX = "Tracer"
# isinstance(x, <one of these>) is True only for a value that is not a tracer.
CONCRETE_TYPES = frozenset({
    "int", "float", "bool", "complex", "str", "numpy.ndarray", "numpy.generic", "numpy.number", "numbers.Number",
    "numbers.Real", "numbers.Integral", "numbers.Complex", "onp.ndarray",
})
# jnp functions that return a Python list of arrays (its length is static), not one array: iterating
# or testing the result is Python work on a list.
LIST_RETURNING = frozenset({"jax.numpy.split", "jax.numpy.array_split", "jax.numpy.hsplit", "jax.numpy.vsplit",
                            "jax.numpy.dsplit", "jax.numpy.unstack", "jax.numpy.meshgrid",
                            "jax.numpy.broadcast_arrays", "jax.numpy.atleast_1d", "jax.numpy.atleast_2d",
                            "jax.numpy.atleast_3d", "jax.lax.split"})
# Calls that are True only for a concrete value.
CONCRETE_PREDICATES = frozenset({"jax.core.is_concrete"})
# Exceptions a failed concretization raises or derives from: code in a `try` catching one of them
# handles the traced case on purpose.
CONCRETIZATION_ERRORS = frozenset({"ConcretizationTypeError", "TracerBoolConversionError",
                                   "TracerIntegerConversionError", "TracerArrayConversionError",
                                   "TypeError", "Exception", "BaseException", "JAXTypeError"})
