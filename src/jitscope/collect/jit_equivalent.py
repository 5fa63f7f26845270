"""A wrapped function as plain ``jax.jit`` traces it, with the wrapper's own static rules applied.

inspect, compare and scale re-jit the user's function (a fresh ``jax.jit`` per trace, so that every
trace runs Python). They must analyse the program the user's wrapper compiles, not another one:

* ``jax.jit(f, static_argnums=..., static_argnames=...)``: ``f`` with the same static arguments
  (and ``in_shardings``/``out_shardings``, read by the caller).
* ``equinox.filter_jit(f)``: every array leaf of the arguments is traced and every other leaf (a
  Python float learning rate, a string, a function, a Module's non-array field) is static. ``jax.jit``
  of ``f`` would trace the float instead (a different program). The arguments are partitioned as
  equinox does (``is_array``: ``jax.Array``, ``numpy.ndarray``, ``numpy.generic``); the call traces
  only the array half and the static half is closed over. The function itself is partitioned too
  (a filter-jitted bound method of a Module traces the Module's arrays).
* ``flax.nnx.jit(f, static_argnums=...)``: kept as is, its static arguments made static for the
  outer ``jax.jit`` too, so nnx's own graph handling (Modules split into a static graph and traced
  state) runs inside and the static values reach it as Python values.

What each wrapper does is ``jaxmodel`` (``families/*.py``); this module recognises the wrapper
objects at run time. It imports neither equinox nor flax: an object of theirs was made by them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._jaxcompat import unwrap_jit

# The keyword under which a filter-jitted callable's own array leaves (a bound Module method's
# parameters) reach the traced function.
FUN_ARRAYS = "_jitscope_fun_arrays"


@dataclass
class JitEquivalent:
    """What to ``jax.jit`` so that the program equals the one the user's wrapper compiles."""

    fun: Callable[..., Any]
    args: tuple
    kwargs: dict[str, Any]
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    wrapper: str = ""  # the jaxmodel qualified name: "jax.jit", "equinox.filter_jit", "flax.nnx.jit"; "" plain
    # Parameters static because of their type (filter_jit), by name, with their values: for the
    # signature and for the parameters a tracer error may name.
    static_by_type: dict[str, Any] = field(default_factory=dict)
    user_function: Callable[..., Any] | None = None  # the function the user wrote, for names and source


def wrapper_of(fn: Any) -> str:
    """The jaxmodel name of the jit wrapper ``fn`` is ("" when it is none of them)."""
    if unwrap_jit(fn) is not None:
        return "jax.jit"
    mod = type(fn).__module__ or ""
    if mod.startswith("equinox.") and type(fn).__name__ == "_JitWrapper":
        return "equinox.filter_jit"
    if mod.startswith("flax.nnx.") and type(fn).__name__ == "JitWrapped":
        return "flax.nnx.jit"
    return ""


def user_function(fn: Any) -> Any:
    """The function the user wrote under a recognised jit wrapper (``fn`` itself otherwise)."""
    if wrapper_of(fn):
        return getattr(fn, "__wrapped__", fn)
    return fn


def _is_array(x: Any) -> bool:
    import jax
    import numpy as np

    return isinstance(x, (jax.Array, np.ndarray, np.generic))


def _filter_call(fn: Any, args: tuple, kwargs: dict[str, Any]) -> JitEquivalent:
    import jax

    user = fn.__wrapped__
    tu = jax.tree_util

    def dynamic(tree: Any) -> Any:
        return tu.tree_map(lambda x: x if _is_array(x) else None, tree)

    def static(tree: Any) -> Any:
        return tu.tree_map(lambda x: None if _is_array(x) else x, tree)

    def combine(dyn: Any, stat: Any) -> Any:
        return tu.tree_map(lambda d, s: s if d is None else d, dyn, stat, is_leaf=lambda x: x is None)

    whole = (user, args, kwargs)
    dyn_user, dyn_args, dyn_kwargs = dynamic(whole)
    st = static(whole)
    has_fun_arrays = bool(tu.tree_leaves(dyn_user))

    @functools.wraps(user)
    def traced(*a: Any, **k: Any) -> Any:
        fun_arrays = k.pop(FUN_ARRAYS, dyn_user)
        f, a2, k2 = combine((fun_arrays, a, k), st)
        return f(*a2, **k2)

    kw = dict(dyn_kwargs)
    if has_fun_arrays:
        kw[FUN_ARRAYS] = dyn_user
    by_type = _static_params(user, args, kwargs)
    return JitEquivalent(traced, tuple(dyn_args), kw, wrapper="equinox.filter_jit", static_by_type=by_type,
                         user_function=user)


def _static_params(user: Any, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The parameters whose whole value is static under filter_jit (no array leaf), by name."""
    import inspect

    import jax

    try:
        bound = inspect.signature(user).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {}
    return {name: value for name, value in bound.arguments.items()
            if not any(_is_array(x) for x in jax.tree_util.tree_leaves(value))}


def jit_equivalent(fn: Any, args: tuple = (), kwargs: dict[str, Any] | None = None) -> JitEquivalent:
    """``fn`` (a ``jax.jit`` object, an ``equinox.filter_jit`` or ``flax.nnx.jit`` wrapper, or a plain
    function) as a function and arguments for ``jax.jit`` with the same static rules."""
    kwargs = dict(kwargs or {})
    wrapper = wrapper_of(fn)
    if wrapper == "jax.jit":
        plain, nums, names = unwrap_jit(fn)  # type: ignore[misc]
        return JitEquivalent(plain, tuple(args), kwargs, tuple(nums), tuple(names), wrapper, user_function=plain)
    if wrapper == "equinox.filter_jit":
        return _filter_call(fn, tuple(args), kwargs)
    if wrapper == "flax.nnx.jit":
        nums = getattr(fn, "static_argnums", ()) or ()
        names = getattr(fn, "static_argnames", ()) or ()
        nums = (nums,) if isinstance(nums, int) else tuple(nums)
        names = (names,) if isinstance(names, str) else tuple(names)
        return JitEquivalent(fn, tuple(args), kwargs, nums, names, wrapper, user_function=user_function(fn))
    return JitEquivalent(fn, tuple(args), kwargs, user_function=fn)


def same_wrapper(fn: Any, plain: Callable[..., Any], extra_static_argnames: tuple[str, ...] = ()) -> Any:
    """``plain`` wrapped the way ``fn`` is (a fresh ``equinox.filter_jit`` or ``flax.nnx.jit`` with the
    same static arguments), or None when ``fn`` is not one of those wrappers. compare builds its jitted
    variants with it, so ``jit(g)`` of a filter-jitted ``g`` keeps filter_jit's static rules."""
    import importlib

    wrapper = wrapper_of(fn)
    if wrapper == "equinox.filter_jit":
        return importlib.import_module("equinox").filter_jit(plain)
    if wrapper == "flax.nnx.jit":
        eq = jit_equivalent(fn)
        names = tuple(dict.fromkeys((*eq.static_argnames, *extra_static_argnames)))
        return importlib.import_module("flax.nnx").jit(plain, static_argnums=eq.static_argnums or None,
                                                       static_argnames=names or None)
    return None
