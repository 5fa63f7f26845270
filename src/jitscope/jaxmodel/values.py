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
# isinstance(x, <one of these>) is True for every tracer (a tracer is a `jax.Array`), so where it is False the
# value is concrete: `if not isinstance(x, jax.Array): np.asarray(x)` runs only on host values.
# (`jax.typing.ArrayLike` is not one: its Union names the concrete array class, and a tracer is no instance.)
TRACER_ADMITTING_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray", "jax.core.Tracer"})


def concrete_type(q: str) -> bool:
    """Is ``isinstance(x, q)`` False for every tracer? A tracer subclasses no NumPy type (``np.ndarray``,
    ``np.generic``, ``np.floating``, ``np.dtype``, ...) and no Python scalar or ``str`` (tests/test_jaxmodel.py
    checks each kind against a tracer under real ``jax.jit``)."""
    return q in CONCRETE_TYPES or (q.startswith("numpy.") and not q.startswith("numpy.typing"))


def admits_every_tracer(q: str) -> bool:
    """Is ``isinstance(x, q)`` True for every tracer (so False only for a concrete value)?"""
    return q in TRACER_ADMITTING_TYPES or q.rpartition(".")[2].endswith(TRACER_TYPE_SUFFIX)


# jnp functions that return a Python list of arrays (its length is static), not one array: iterating
# or testing the result is Python work on a list.
LIST_RETURNING = frozenset({"jax.numpy.split", "jax.numpy.array_split", "jax.numpy.hsplit", "jax.numpy.vsplit",
                            "jax.numpy.dsplit", "jax.numpy.unstack", "jax.numpy.meshgrid",
                            "jax.numpy.broadcast_arrays", "jax.numpy.atleast_1d", "jax.numpy.atleast_2d",
                            "jax.numpy.atleast_3d", "jax.lax.split"})
# jnp/lax functions that return a Python tuple of arrays (a fixed number of them: one per dimension, or
# one per output), not one array: iterating or unpacking the result is Python work on a tuple. Each is run
# under jit in tests/test_lint_ways_reached.py.
TUPLE_RETURNING = frozenset({"jax.numpy.nonzero", "jax.numpy.unravel_index", "jax.numpy.triu_indices",
                             "jax.numpy.tril_indices", "jax.numpy.diag_indices", "jax.numpy.diag_indices_from",
                             "jax.numpy.triu_indices_from", "jax.numpy.tril_indices_from", "jax.numpy.divmod",
                             "jax.numpy.frexp", "jax.numpy.modf", "jax.numpy.linalg.eigh", "jax.numpy.linalg.slogdet",
                             "jax.lax.top_k"})
# ... and those that do so only when called with their first argument alone: `jnp.where(c)` (and its
# `size=`/`fill_value=` keywords) is `jnp.nonzero(c)`, one index array per dimension of `c`.
TUPLE_RETURNING_ONE_ARG = frozenset({"jax.numpy.where"})


def returns_container(q: str | None, positional: int, keywords: frozenset[str] | set[str] = frozenset()) -> bool:
    """Does a call of ``q`` with ``positional`` arguments and these keyword names return a Python list or tuple
    of arrays (a fixed number of items) rather than one array?"""
    if q in LIST_RETURNING or q in TUPLE_RETURNING:
        return True
    return q in TUPLE_RETURNING_ONE_ARG and positional == 1 and not ({"x", "y"} & set(keywords))


# Calls that answer from a value's dtype, shape or type alone and return a Python value (a bool, a
# dtype, an int), even on an abstract tracer under jit: `if jnp.isdtype(x.dtype, "real floating"):`
# is Python control flow on a concrete bool (tests/test_jaxmodel.py runs each under jit, and walks every public
# callable of jnp, lax and jax.dtypes on a traced argument: each one that returns a Python value is a row here).
DTYPE_PREDICATES = frozenset({
    "jax.numpy.isdtype", "jax.numpy.issubdtype", "jax.dtypes.issubdtype", "jax.numpy.iscomplexobj",
    "jax.numpy.isrealobj", "jax.numpy.result_type", "jax.dtypes.result_type", "jax.numpy.promote_types",
    "jax.numpy.can_cast", "jax.numpy.dtype", "jax.numpy.iinfo", "jax.numpy.finfo", "jax.numpy.isscalar",
    "jax.dtypes.canonicalize_dtype", "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size",
    "jax.numpy.iterable", "jax.lax.dtype", "jax.dtypes.itemsize_bits", "jax.dtypes.scalar_type_of",
    "numpy.isdtype", "numpy.iterable", "numpy.issubdtype", "numpy.iscomplexobj", "numpy.isrealobj", "numpy.result_type",
    "numpy.dtype", "numpy.shape", "numpy.ndim",
})
# isinstance(x, <one of these>) is True only for a Python container: a tuple, list or dict of arrays is a
# pytree whose leaves are traced, never one tracer itself (`len`, truth and iteration are Python work).
CONTAINER_TYPES = frozenset({
    "tuple", "list", "dict", "collections.abc.Sequence", "collections.abc.Mapping", "collections.abc.MutableMapping",
    "collections.abc.MutableSequence", "typing.Sequence", "typing.Mapping", "typing.MutableMapping",
    "typing.MutableSequence", "collections.OrderedDict", "collections.namedtuple", "typing.NamedTuple",
})
# Builtins that answer from a value's type or container length and return a Python value, on a tracer too:
# `any(isinstance(v, jax.Array) for v in xs)` stages no JAX op (tests/test_jaxmodel.py runs each under jit).
TYPE_QUERIES = frozenset({"isinstance", "issubclass", "callable", "hasattr", "type", "len", "id"})
# Calls that are True only for a concrete value.
CONCRETE_PREDICATES = frozenset({"jax.core.is_concrete"})
# Collectives that give a Python number when given one: `lax.psum(1, "i")` is the axis size, an `int`
# under jit, pmap, vmap and shard_map alike (the idiom for `range(lax.psum(1, axis))`).
PYTHON_OF_PYTHON = frozenset({"jax.lax.psum"})
# Exceptions a failed concretization raises or derives from: code in a `try` catching one of them
# handles the traced case on purpose.
CONCRETIZATION_ERRORS = frozenset({"ConcretizationTypeError", "TracerBoolConversionError",
                                   "TracerIntegerConversionError", "TracerArrayConversionError",
                                   "TypeError", "Exception", "BaseException", "JAXTypeError"})
# Arguments that `range` and NumPy's constructors need as host numbers: a tracer there fails under any jit
# (TracerIntegerConversionError / TracerArrayConversionError). A parameter whose kind only a convention guesses
# (a module's `__call__`) and that the body uses as one of these is the caller's Python number.
# function -> (positions, keywords); tests/test_lint_eqx_call_args.py runs them under jit.
HOST_SIZE_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "range": ((0, 1, 2), ()), "numpy.arange": ((0, 1, 2), ("start", "stop", "step")),
    "numpy.zeros": ((0,), ("shape",)), "numpy.ones": ((0,), ("shape",)), "numpy.empty": ((0,), ("shape",)),
    "numpy.full": ((0,), ("shape",)), "numpy.eye": ((0, 1), ("N", "M")), "numpy.identity": ((0,), ("n",)),
    "numpy.tri": ((0, 1), ("N", "M")), "numpy.linspace": ((2,), ("num",)),
}
# Parameters of jnp/lax/nn/random functions that must be Python ints (or tuples of them) other than
# array shapes (JS303 has those): a tracer there raises under jit (ConcretizationTypeError, TypeError,
# TracerIntegerConversionError, ...). function -> (positions, keywords). `jnp.repeat` only without
# `total_repeat_length` (`STATIC_INT_UNLESS`). tests/test_lint_traced_int.py runs every row under real jit.
STATIC_INT_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "jax.nn.one_hot": ((1,), ("num_classes",)), "jax.numpy.repeat": ((1,), ("repeats",)),
    "jax.lax.dynamic_slice": ((2,), ("slice_sizes",)), "jax.lax.dynamic_slice_in_dim": ((2,), ("slice_size",)),
    "jax.numpy.pad": ((1,), ("pad_width",)), "jax.numpy.tril": ((1,), ("k",)), "jax.numpy.triu": ((1,), ("k",)),
    "jax.lax.top_k": ((1,), ("k",)), "jax.random.split": ((1,), ("num",)),
    "jax.numpy.expand_dims": ((1,), ("axis",)), "jax.numpy.moveaxis": ((1, 2), ("source", "destination")),
    "jax.numpy.diag": ((1,), ("k",)), "jax.numpy.triu_indices": ((0, 1), ("n", "k")),
    "jax.numpy.tril_indices": ((0, 1), ("n", "k")), "jax.numpy.resize": ((1,), ("new_shape",)),
    "jax.lax.slice": ((1, 2, 3), ("start_indices", "limit_indices", "strides")),
    "jax.lax.slice_in_dim": ((1, 2, 3), ("start_index", "limit_index", "stride")),
    "jax.lax.index_in_dim": ((1,), ("index",)), "jax.lax.broadcast": ((1,), ("sizes",)),
    "jax.numpy.zeros_like": ((), ("shape",)), "jax.numpy.ones_like": ((), ("shape",)),
    "jax.numpy.full_like": ((), ("shape",)),
    **{f"jax.numpy.{r}": ((1,), ("axis",)) for r in ("sum", "mean", "max", "min", "prod", "argmax", "argmin",
                                                    "cumsum", "std", "var", "any", "all")},
}
STATIC_INT_UNLESS: dict[str, str] = {"jax.numpy.repeat": "total_repeat_length"}

# jax.random functions that read a key without consuming it: JAX's own key-reuse checker
# (``jax_debug_key_reuse``) accepts the same key passed to them again, and to one consumer after them. Every
# other ``jax.random`` function taking a key consumes it (split, the samplers, bits): a second consumer of the
# same key draws the same numbers (tests/test_lint_key_reuse.py runs each under the checker).
RANDOM_NON_CONSUMING = frozenset({
    "jax.random.fold_in", "jax.random.key_data", "jax.random.key_impl", "jax.random.wrap_key_data",
    "jax.random.PRNGKey", "jax.random.key", "jax.random.clone", "jax.random.default_prng_impl",
    "jax.random.key_dtype",
})
