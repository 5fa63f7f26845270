"""Equinox's filtered transformations (https://docs.kidger.site/equinox/api/transformations/).

``filter_jit`` traces only the JAX/NumPy array leaves of its arguments; every other leaf (Python
numbers, strings, functions, ``None``) is static, hashed into the cache key. It has no
``static_argnums``: to make an array static one converts it to a Python value, and to make a
Python number traced one passes it as an array (``jnp.asarray(lr)``).
"""

from __future__ import annotations

from ..transforms import Transform

_DOC = "https://docs.kidger.site/equinox/api/transformations/"

TRANSFORMS = (
    Transform("equinox.filter_jit", "equinox", "abstract", compiles=True, python_runs="once_per_compile",
              donate_options=("donate",), static_by_type=True, doc=_DOC),
    Transform("equinox.filter_pmap", "equinox", "abstract", compiles=True, python_runs="once_per_compile",
              static_by_type=True, axes_option=("in_axes", -1), doc=_DOC),
    Transform("equinox.filter_vmap", "equinox", "abstract", static_by_type=True, axes_option=("in_axes", -1),
              doc=_DOC),
    Transform("equinox.filter_grad", "equinox", "concrete", static_by_type=True, differentiates=True, doc=_DOC),
    Transform("equinox.filter_value_and_grad", "equinox", "concrete", static_by_type=True, differentiates=True,
              doc=_DOC),
    Transform("equinox.filter_checkpoint", "equinox", "abstract", python_runs="once_per_function",
              static_by_type=True, doc=_DOC),
    Transform("equinox.filter_eval_shape", "equinox", "abstract", python_runs="once_per_function",
              static_by_type=True, trace_only=True, doc=_DOC),
    Transform("equinox.filter_make_jaxpr", "equinox", "abstract", python_runs="once_per_function",
              static_by_type=True, trace_only=True, doc=_DOC),
)

# Classes whose instances are pytrees (lint/pytrees.py): every field of an equinox Module is a leaf, so a
# method computing with its array-annotated fields runs on tracers when the module passes through
# filter_jit or jit (its `__call__` is reached by the module convention, lint/reach.py).
PYTREE_BASES: tuple[str, ...] = ("equinox.Module",)
PYTREE_DECORATORS: tuple[str, ...] = ()
ARRAY_ATTRIBUTES: dict[str, tuple[str, ...]] = {}
REBUILT_WHILE_TRACING: tuple[str, ...] = ()
# Module classes whose non-array attributes are the static part of the instance's pytree: a jit given the
# instance keys its cache on them with ==, so a function object (compared by identity) made per instance
# is a new key for every new instance (lint JS606; tests/test_jaxmodel.py counts the traces).
STATIC_FIELD_BASES = ("equinox.Module", "equinox._module.Module")
# A Module's `__call__` reached by convention (lint saw no call of it) gets whatever its caller passes. Called from
# inside a filter_jit'd function (or any traced one), `model(x, 4)` hands it the Python int 4; `eqx.filter_jit(
# model)(x, 4)` keeps 4 static; only `jax.jit(model)(x, 4)` would trace it (tests/test_jaxmodel.py runs each).
# So the first input is the data (a tracer on some way) and any other parameter is a tracer only where the body
# uses it as an array (a method call, `.shape`): a Python number there stays a Python value (lint/visitor.py).
MODULE_CALL_DATA_INPUTS = 1
# Plain `jax.jit` of a function given a Module flattens it like any pytree: every field not marked
# `eqx.field(static=True)` is a leaf, so a Python `int` field is a tracer there (under `filter_jit` it stays a
# Python int): tests/test_jaxmodel.py test_equinox_module_call_gets_what_its_caller_passes, lint/pytrees.py.
MODULE_BASES_TRACED_BY_JIT = ("equinox.Module", "equinox._module.Module")
